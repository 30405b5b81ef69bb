// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Test} from "../utils/Test.sol";
import {IdentityRegistry} from "../../erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../erc8004/ReputationRegistry.sol";
import {IReputationRegistry} from "../../erc8004/IReputationRegistry.sol";

contract ReputationRegistryTest is Test {
    int128 private constant MAX_ABS_VALUE = 1e38;
    uint256 private constant UNKNOWN_AGENT = 99;
    string private constant FEEDBACK_URI = "ipfs://bafy-feedback";
    bytes32 private constant FEEDBACK_HASH = keccak256("feedback file");

    IdentityRegistry internal identity;
    ReputationRegistry internal reputation;
    address internal agentOwner;
    address internal approved;
    address internal operator;
    address internal client1;
    address internal client2;
    address internal responder;
    uint256 internal agentId;

    function setUp() public {
        identity = new IdentityRegistry();
        reputation = new ReputationRegistry(address(identity));
        agentOwner = makeAddr("agentOwner");
        approved = makeAddr("approved");
        operator = makeAddr("operator");
        client1 = makeAddr("client1");
        client2 = makeAddr("client2");
        responder = makeAddr("responder");

        vm.startPrank(agentOwner);
        agentId = identity.register("ipfs://bafy-agent");
        identity.approve(approved, agentId);
        identity.setApprovalForAll(operator, true);
        vm.stopPrank();
    }

    /*------------------------------ helpers ------------------------------*/

    function _give(address client, int128 value, uint8 decimals, string memory tag1, string memory tag2) internal {
        vm.prank(client);
        reputation.giveFeedback(agentId, value, decimals, tag1, tag2, "", "", bytes32(0));
    }

    function _give(address client, int128 value, uint8 decimals) internal {
        _give(client, value, decimals, "starred", "");
    }

    function _clients(address a) internal pure returns (address[] memory list) {
        list = new address[](1);
        list[0] = a;
    }

    function _clients(address a, address b) internal pure returns (address[] memory list) {
        list = new address[](2);
        list[0] = a;
        list[1] = b;
    }

    function _assertEq(string memory a, string memory b, string memory label) internal pure {
        assertEq(keccak256(bytes(a)), keccak256(bytes(b)), label);
    }

    function _assertEqInt(int256 a, int256 b, string memory label) internal pure {
        assertEq(bytes32(uint256(a)), bytes32(uint256(b)), label);
    }

    function _notFound(address client, uint64 index) internal view returns (bytes memory) {
        return abi.encodeWithSelector(IReputationRegistry.FeedbackNotFound.selector, agentId, client, index);
    }

    /*------------------------------ deployment ------------------------------*/

    function test_WhenDeployed_ExposesIdentityRegistryAndVersion() public view {
        assertEq(reputation.getIdentityRegistry(), address(identity), "identity registry");
        _assertEq(reputation.getVersion(), "2.0.0", "version");
    }

    function test_RevertWhen_DeployedWithZeroIdentityRegistry() public {
        vm.expectRevert(IReputationRegistry.InvalidIdentityRegistry.selector);
        new ReputationRegistry(address(0));
    }

    /*------------------------------ giveFeedback ------------------------------*/

    function test_GivenRegisteredAgent_WhenFeedbackGiven_EmitsNewFeedback() public {
        vm.expectEmit(address(reputation));
        emit IReputationRegistry.NewFeedback(
            agentId,
            client1,
            1,
            9977,
            2,
            "uptime",
            "uptime",
            "week",
            "https://agent.example/api",
            FEEDBACK_URI,
            FEEDBACK_HASH
        );
        vm.prank(client1);
        reputation.giveFeedback(
            agentId, 9977, 2, "uptime", "week", "https://agent.example/api", FEEDBACK_URI, FEEDBACK_HASH
        );
    }

    function test_GivenRegisteredAgent_WhenFeedbackGiven_StoresItAtIndexOne() public {
        _give(client1, 87, 0, "starred", "quality");

        (int128 value, uint8 decimals, string memory tag1, string memory tag2, bool isRevoked) =
            reputation.readFeedback(agentId, client1, 1);
        _assertEqInt(value, 87, "value");
        assertEq(decimals, 0, "value decimals");
        _assertEq(tag1, "starred", "tag1");
        _assertEq(tag2, "quality", "tag2");
        assertFalse(isRevoked, "not revoked");
        assertEq(reputation.getLastIndex(agentId, client1), 1, "last index");
        address[] memory clients = reputation.getClients(agentId);
        assertEq(clients.length, 1, "client count");
        assertEq(clients[0], client1, "client recorded");
    }

    function test_GivenPriorFeedback_WhenFeedbackGiven_IndexesCountPerClient() public {
        _give(client1, 10, 0);
        _give(client2, 20, 0);

        vm.expectEmit(address(reputation));
        emit IReputationRegistry.NewFeedback(agentId, client1, 2, 30, 0, "starred", "starred", "", "", "", bytes32(0));
        _give(client1, 30, 0);

        assertEq(reputation.getLastIndex(agentId, client1), 2, "client1 last index");
        assertEq(reputation.getLastIndex(agentId, client2), 1, "client2 last index");
        assertEq(reputation.getLastIndex(agentId, agentOwner), 0, "no feedback, index 0");
        (int128 value,,,,) = reputation.readFeedback(agentId, client1, 2);
        _assertEqInt(value, 30, "second feedback of client1");
        address[] memory clients = reputation.getClients(agentId);
        assertEq(clients.length, 2, "each client listed once");
        assertEq(clients[0], client1, "first client");
        assertEq(clients[1], client2, "second client");
    }

    function test_GivenBoundaryValues_WhenFeedbackGiven_Accepts() public {
        _give(client1, MAX_ABS_VALUE, 18);
        _give(client1, -MAX_ABS_VALUE, 0);

        (int128 high, uint8 highDecimals,,,) = reputation.readFeedback(agentId, client1, 1);
        (int128 low,,,,) = reputation.readFeedback(agentId, client1, 2);
        _assertEqInt(high, MAX_ABS_VALUE, "maximum value");
        assertEq(highDecimals, 18, "maximum decimals");
        _assertEqInt(low, -MAX_ABS_VALUE, "minimum value");
    }

    function test_GivenAgentTransferred_WhenFormerOwnerGivesFeedback_Accepts() public {
        vm.prank(agentOwner);
        identity.transferFrom(agentOwner, client2, agentId);

        _give(agentOwner, 50, 0);

        assertEq(reputation.getLastIndex(agentId, agentOwner), 1, "former owner's feedback");
    }

    function test_RevertWhen_FeedbackValueDecimalsAbove18() public {
        vm.expectRevert(abi.encodeWithSelector(IReputationRegistry.ValueDecimalsTooLarge.selector, uint8(19)));
        _give(client1, 1, 19);
    }

    function test_RevertWhen_FeedbackValueAboveMaximum() public {
        vm.expectRevert(abi.encodeWithSelector(IReputationRegistry.ValueOutOfRange.selector, MAX_ABS_VALUE + 1));
        _give(client1, MAX_ABS_VALUE + 1, 0);
    }

    function test_RevertWhen_FeedbackValueBelowMinimum() public {
        vm.expectRevert(abi.encodeWithSelector(IReputationRegistry.ValueOutOfRange.selector, type(int128).min));
        _give(client1, type(int128).min, 0);
    }

    function test_RevertWhen_FeedbackFromAgentOwner() public {
        vm.expectRevert(abi.encodeWithSelector(IReputationRegistry.SelfFeedbackNotAllowed.selector, agentId, agentOwner));
        _give(agentOwner, 100, 0);
    }

    function test_RevertWhen_FeedbackFromApprovedAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IReputationRegistry.SelfFeedbackNotAllowed.selector, agentId, approved));
        _give(approved, 100, 0);
    }

    function test_RevertWhen_FeedbackFromOperator() public {
        vm.expectRevert(abi.encodeWithSelector(IReputationRegistry.SelfFeedbackNotAllowed.selector, agentId, operator));
        _give(operator, 100, 0);
    }

    function test_RevertWhen_FeedbackToUnknownAgent() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, UNKNOWN_AGENT));
        vm.prank(client1);
        reputation.giveFeedback(UNKNOWN_AGENT, 1, 0, "", "", "", "", bytes32(0));
    }

    function testFuzz_GivenValidInput_WhenFeedbackGiven_ReadsBackAndSummarisesToItself(
        int128 value,
        uint8 decimals,
        string memory tag1,
        string memory tag2
    ) public {
        value = int128(int256(bound(uint256(int256(value) + 1e38), 0, 2e38)) - 1e38);
        decimals = uint8(bound(decimals, 0, 18));
        _give(client1, value, decimals, tag1, tag2);

        (int128 storedValue, uint8 storedDecimals, string memory storedTag1, string memory storedTag2,) =
            reputation.readFeedback(agentId, client1, 1);
        _assertEqInt(storedValue, value, "stored value");
        assertEq(storedDecimals, decimals, "stored decimals");
        _assertEq(storedTag1, tag1, "stored tag1");
        _assertEq(storedTag2, tag2, "stored tag2");
        (uint64 count, int128 summaryValue, uint8 summaryDecimals) =
            reputation.getSummary(agentId, _clients(client1), tag1, tag2);
        assertEq(count, 1, "summary count");
        _assertEqInt(summaryValue, value, "summary of one value is that value");
        assertEq(summaryDecimals, decimals, "summary decimals");
    }

    /*------------------------------ revokeFeedback ------------------------------*/

    function test_GivenFeedback_WhenClientRevokes_MarksRevokedAndEmits() public {
        _give(client1, 10, 0);
        _give(client1, 20, 0);

        vm.expectEmit(address(reputation));
        emit IReputationRegistry.FeedbackRevoked(agentId, client1, 2);
        vm.prank(client1);
        reputation.revokeFeedback(agentId, 2);

        (,,,, bool secondRevoked) = reputation.readFeedback(agentId, client1, 2);
        (,,,, bool firstRevoked) = reputation.readFeedback(agentId, client1, 1);
        assertTrue(secondRevoked, "revoked feedback");
        assertFalse(firstRevoked, "other feedback untouched");
        assertEq(reputation.getLastIndex(agentId, client1), 2, "last index unchanged");
    }

    function test_RevertWhen_RevokeIndexZero() public {
        _give(client1, 10, 0);

        vm.expectRevert(_notFound(client1, 0));
        vm.prank(client1);
        reputation.revokeFeedback(agentId, 0);
    }

    function test_RevertWhen_RevokeIndexAboveLast() public {
        _give(client1, 10, 0);

        vm.expectRevert(_notFound(client1, 2));
        vm.prank(client1);
        reputation.revokeFeedback(agentId, 2);
    }

    function test_RevertWhen_RevokeFeedbackOfAnotherClient() public {
        _give(client1, 10, 0);

        vm.expectRevert(_notFound(client2, 1));
        vm.prank(client2);
        reputation.revokeFeedback(agentId, 1);
    }

    function test_RevertWhen_RevokeTwice() public {
        _give(client1, 10, 0);
        vm.prank(client1);
        reputation.revokeFeedback(agentId, 1);

        vm.expectRevert(
            abi.encodeWithSelector(IReputationRegistry.FeedbackAlreadyRevoked.selector, agentId, client1, uint64(1))
        );
        vm.prank(client1);
        reputation.revokeFeedback(agentId, 1);
    }

    /*------------------------------ appendResponse ------------------------------*/

    function test_GivenFeedback_WhenAnyoneResponds_EmitsResponseAppendedAndCounts() public {
        _give(client1, 10, 0);

        vm.expectEmit(address(reputation));
        emit IReputationRegistry.ResponseAppended(agentId, client1, 1, responder, "ipfs://refund", keccak256("r"));
        vm.prank(responder);
        reputation.appendResponse(agentId, client1, 1, "ipfs://refund", keccak256("r"));
        vm.prank(agentOwner);
        reputation.appendResponse(agentId, client1, 1, "ipfs://reply", bytes32(0));

        assertEq(reputation.getResponseCount(agentId, client1, 1, new address[](0)), 2, "responses to the feedback");
        assertEq(reputation.getResponseCount(agentId, client1, 1, _clients(responder)), 1, "responses by responder");
    }

    function test_GivenRevokedFeedback_WhenResponded_Succeeds() public {
        _give(client1, 10, 0);
        vm.prank(client1);
        reputation.revokeFeedback(agentId, 1);

        vm.prank(responder);
        reputation.appendResponse(agentId, client1, 1, "ipfs://note", bytes32(0));

        assertEq(reputation.getResponseCount(agentId, client1, 1, new address[](0)), 1, "response recorded");
    }

    function test_RevertWhen_ResponseToIndexZero() public {
        _give(client1, 10, 0);

        vm.expectRevert(_notFound(client1, 0));
        vm.prank(responder);
        reputation.appendResponse(agentId, client1, 0, "ipfs://r", bytes32(0));
    }

    function test_RevertWhen_ResponseToIndexAboveLast() public {
        _give(client1, 10, 0);

        vm.expectRevert(_notFound(client1, 2));
        vm.prank(responder);
        reputation.appendResponse(agentId, client1, 2, "ipfs://r", bytes32(0));
    }

    function test_RevertWhen_ResponseURIEmpty() public {
        _give(client1, 10, 0);

        vm.expectRevert(IReputationRegistry.EmptyResponseURI.selector);
        vm.prank(responder);
        reputation.appendResponse(agentId, client1, 1, "", bytes32(0));
    }

    /*------------------------------ readFeedback ------------------------------*/

    function test_RevertWhen_ReadFeedbackIndexZero() public {
        _give(client1, 10, 0);

        vm.expectRevert(_notFound(client1, 0));
        reputation.readFeedback(agentId, client1, 0);
    }

    function test_RevertWhen_ReadFeedbackIndexAboveLast() public {
        vm.expectRevert(_notFound(client1, 1));
        reputation.readFeedback(agentId, client1, 1);
    }

    /*------------------------------ getSummary ------------------------------*/

    function test_RevertWhen_SummaryWithoutClients() public {
        vm.expectRevert(IReputationRegistry.ClientAddressesRequired.selector);
        reputation.getSummary(agentId, new address[](0), "", "");
    }

    function test_GivenNoMatchingFeedback_SummaryIsZero() public {
        _give(client1, 80, 0, "starred", "");

        (uint64 count, int128 value, uint8 decimals) = reputation.getSummary(agentId, _clients(client1), "uptime", "");
        assertEq(count, 0, "count");
        _assertEqInt(value, 0, "value");
        assertEq(decimals, 0, "decimals");
        (count,,) = reputation.getSummary(agentId, _clients(client2), "", "");
        assertEq(count, 0, "client without feedback");
    }

    function test_GivenSameDecimals_SummaryAveragesValues() public {
        _give(client1, 80, 0);
        _give(client1, 90, 0);
        _give(client2, 100, 0);

        (uint64 count, int128 value, uint8 decimals) =
            reputation.getSummary(agentId, _clients(client1, client2), "", "");
        assertEq(count, 3, "count");
        _assertEqInt(value, 90, "average");
        assertEq(decimals, 0, "decimals");
    }

    function test_GivenMixedDecimals_SummaryUsesMostFrequentDecimals() public {
        _give(client1, 9977, 2); // 99.77
        _give(client1, 9900, 2); // 99.00
        _give(client2, 99, 0); // 99

        // (99.77 + 99 + 99) / 3 = 99.2566.. -> 9925 at 2 decimals, truncated
        (uint64 count, int128 value, uint8 decimals) =
            reputation.getSummary(agentId, _clients(client1, client2), "", "");
        assertEq(count, 3, "count");
        _assertEqInt(value, 9925, "average at the most frequent decimals");
        assertEq(decimals, 2, "most frequent decimals");
    }

    function test_GivenDecimalsTie_SummaryUsesSmallerDecimals() public {
        _give(client1, 15, 1); // 1.5
        _give(client2, 1, 0); // 1

        (, int128 value, uint8 decimals) = reputation.getSummary(agentId, _clients(client1, client2), "", "");
        _assertEqInt(value, 1, "1.25 at 0 decimals");
        assertEq(decimals, 0, "smaller of the tied decimals");
    }

    function test_GivenNegativeValues_SummaryTruncatesTowardZero() public {
        _give(client1, -1, 0);
        _give(client2, -2, 0);

        (uint64 count, int128 value,) = reputation.getSummary(agentId, _clients(client1, client2), "", "");
        assertEq(count, 2, "count");
        _assertEqInt(value, -1, "-1.5 truncated toward zero");
    }

    function test_GivenRevokedFeedback_SummaryExcludesIt() public {
        _give(client1, 10, 0);
        _give(client1, 100, 0);
        vm.prank(client1);
        reputation.revokeFeedback(agentId, 2);

        (uint64 count, int128 value,) = reputation.getSummary(agentId, _clients(client1), "", "");
        assertEq(count, 1, "revoked not counted");
        _assertEqInt(value, 10, "revoked not averaged");
    }

    function test_GivenTagFilters_SummaryCountsOnlyMatches() public {
        _give(client1, 10, 0, "starred", "day");
        _give(client1, 20, 0, "starred", "week");
        _give(client1, 60, 0, "uptime", "week");

        (uint64 count, int128 value,) = reputation.getSummary(agentId, _clients(client1), "starred", "");
        assertEq(count, 2, "tag1 filter count");
        _assertEqInt(value, 15, "tag1 filter average");
        (count, value,) = reputation.getSummary(agentId, _clients(client1), "", "week");
        assertEq(count, 2, "tag2 filter count");
        _assertEqInt(value, 40, "tag2 filter average");
        (count, value,) = reputation.getSummary(agentId, _clients(client1), "starred", "week");
        assertEq(count, 1, "both filters count");
        _assertEqInt(value, 20, "both filters average");
    }

    function test_GivenClientFilter_SummaryCountsOnlyThoseClients() public {
        _give(client1, 10, 0);
        _give(client2, 90, 0);

        (uint64 count, int128 value,) = reputation.getSummary(agentId, _clients(client2), "", "");
        assertEq(count, 1, "count");
        _assertEqInt(value, 90, "only client2");
    }

    /*------------------------------ readAllFeedback ------------------------------*/

    function test_GivenNoClientFilter_ReadAllReturnsEveryClientInOrder() public {
        _give(client2, 1, 0, "a", "x");
        _give(client1, 2, 1, "b", "y");
        _give(client2, 3, 2, "c", "z");

        (
            address[] memory clients,
            uint64[] memory indexes,
            int128[] memory values,
            uint8[] memory decimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revoked
        ) = reputation.readAllFeedback(agentId, new address[](0), "", "", false);

        assertEq(clients.length, 3, "rows");
        assertEq(clients[0], client2, "row 0 client (first client first)");
        assertEq(indexes[0], 1, "row 0 index");
        assertEq(clients[1], client2, "row 1 client");
        assertEq(indexes[1], 2, "row 1 index");
        _assertEqInt(values[1], 3, "row 1 value");
        assertEq(decimals[1], 2, "row 1 decimals");
        _assertEq(tag1s[1], "c", "row 1 tag1");
        _assertEq(tag2s[1], "z", "row 1 tag2");
        assertEq(clients[2], client1, "row 2 client");
        assertEq(indexes[2], 1, "row 2 index");
        assertFalse(revoked[2], "row 2 not revoked");
    }

    function test_GivenRevokedFeedback_ReadAllOmitsItUnlessIncluded() public {
        _give(client1, 1, 0);
        _give(client1, 2, 0);
        vm.prank(client1);
        reputation.revokeFeedback(agentId, 1);

        (address[] memory clients, uint64[] memory indexes,,,,,) =
            reputation.readAllFeedback(agentId, _clients(client1), "", "", false);
        assertEq(clients.length, 1, "revoked omitted");
        assertEq(indexes[0], 2, "remaining index");

        bool[] memory revoked;
        (clients,,,,,, revoked) = reputation.readAllFeedback(agentId, _clients(client1), "", "", true);
        assertEq(clients.length, 2, "revoked included");
        assertTrue(revoked[0], "first flagged revoked");
        assertFalse(revoked[1], "second not revoked");
    }

    function test_GivenFilters_ReadAllReturnsOnlyMatches() public {
        _give(client1, 1, 0, "starred", "day");
        _give(client1, 2, 0, "uptime", "day");
        _give(client2, 3, 0, "starred", "week");

        (address[] memory clients,, int128[] memory values,,,,) =
            reputation.readAllFeedback(agentId, new address[](0), "starred", "", false);
        assertEq(clients.length, 2, "tag1 matches");
        _assertEqInt(values[0], 1, "first match");
        _assertEqInt(values[1], 3, "second match");

        (clients,, values,,,,) = reputation.readAllFeedback(agentId, _clients(client1), "", "day", false);
        assertEq(clients.length, 2, "client and tag2 matches");
        _assertEqInt(values[1], 2, "client1 uptime");

        (clients,,,,,,) = reputation.readAllFeedback(agentId, _clients(responder), "", "", true);
        assertEq(clients.length, 0, "client without feedback");
    }

    /*------------------------------ getResponseCount ------------------------------*/

    function test_GivenResponses_ResponseCountHonoursEachFilter() public {
        _give(client1, 1, 0);
        _give(client1, 2, 0);
        _give(client2, 3, 0);
        vm.prank(responder);
        reputation.appendResponse(agentId, client1, 1, "ipfs://a", bytes32(0));
        vm.prank(responder);
        reputation.appendResponse(agentId, client1, 1, "ipfs://b", bytes32(0));
        vm.prank(agentOwner);
        reputation.appendResponse(agentId, client1, 2, "ipfs://c", bytes32(0));
        vm.prank(agentOwner);
        reputation.appendResponse(agentId, client2, 1, "ipfs://d", bytes32(0));

        address[] memory everyone = new address[](0);
        assertEq(reputation.getResponseCount(agentId, client1, 1, everyone), 2, "one feedback");
        assertEq(reputation.getResponseCount(agentId, client1, 0, everyone), 3, "all feedback of client1");
        assertEq(reputation.getResponseCount(agentId, address(0), 0, everyone), 4, "all feedback of the agent");
        assertEq(reputation.getResponseCount(agentId, address(0), 0, _clients(agentOwner)), 2, "by agent owner");
        assertEq(
            reputation.getResponseCount(agentId, client1, 0, _clients(responder, agentOwner)), 3, "by listed responders"
        );
        assertEq(reputation.getResponseCount(agentId, client1, 1, _clients(client2)), 0, "by non-responder");
        assertEq(reputation.getResponseCount(UNKNOWN_AGENT, address(0), 0, everyone), 0, "unknown agent");
    }
}
