// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Test} from "../utils/Test.sol";
import {IdentityRegistry} from "../../erc8004/IdentityRegistry.sol";
import {IIdentityRegistry} from "../../erc8004/IIdentityRegistry.sol";

/// @dev A smart-contract wallet: accepts agent NFTs, and accepts exactly one digest through ERC-1271.
contract SmartWalletMock is IERC1271, IERC721Receiver {
    bytes32 public acceptedDigest;

    function setAcceptedDigest(bytes32 digest) external {
        acceptedDigest = digest;
    }

    function isValidSignature(bytes32 hash, bytes calldata) external view returns (bytes4) {
        return hash == acceptedDigest ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }

    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return IERC721Receiver.onERC721Received.selector;
    }

    function register(IdentityRegistry registry, string calldata agentURI) external returns (uint256) {
        return registry.register(agentURI);
    }
}

contract IdentityRegistryTest is Test {
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    string private constant URI = "ipfs://bafy-agent-registration";
    uint256 private constant UNKNOWN_AGENT = 99;

    IdentityRegistry internal registry;
    address internal alice;
    address internal bob;
    address internal operator;
    address internal stranger;
    address internal wallet;
    uint256 internal walletKey;

    function setUp() public {
        registry = new IdentityRegistry();
        alice = makeAddr("alice");
        bob = makeAddr("bob");
        operator = makeAddr("operator");
        stranger = makeAddr("stranger");
        (wallet, walletKey) = makeAccount("wallet");
    }

    /*------------------------------ helpers ------------------------------*/

    function _register(address owner) internal returns (uint256 agentId) {
        vm.prank(owner);
        agentId = registry.register(URI);
    }

    function _digest(uint256 agentId, address newWallet, address owner, uint256 deadline)
        internal
        view
        returns (bytes32)
    {
        bytes32 domainSeparator = keccak256(
            abi.encode(
                DOMAIN_TYPEHASH,
                keccak256("ERC8004IdentityRegistry"),
                keccak256("1"),
                block.chainid,
                address(registry)
            )
        );
        bytes32 structHash = keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, owner, deadline));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator, structHash));
    }

    function _sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _assertEq(string memory a, string memory b, string memory label) internal pure {
        assertEq(keccak256(bytes(a)), keccak256(bytes(b)), label);
    }

    function _assertEq(bytes memory a, bytes memory b, string memory label) internal pure {
        assertEq(keccak256(a), keccak256(b), label);
    }

    function _notAuthorized(uint256 agentId, address caller) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(IIdentityRegistry.NotAuthorized.selector, agentId, caller);
    }

    function _nonexistent(uint256 agentId) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, agentId);
    }

    /*------------------------------ deployment ------------------------------*/

    function test_WhenDeployed_ExposesOfficialNameSymbolVersionAndDomain() public view {
        _assertEq(registry.name(), "AgentIdentity", "name");
        _assertEq(registry.symbol(), "AGENT", "symbol");
        _assertEq(registry.getVersion(), "2.0.0", "version");
        (, string memory domainName, string memory domainVersion, uint256 chainId, address verifyingContract,,) =
            registry.eip712Domain();
        _assertEq(domainName, "ERC8004IdentityRegistry", "EIP-712 domain name");
        _assertEq(domainVersion, "1", "EIP-712 domain version");
        assertEq(chainId, block.chainid, "EIP-712 chain id");
        assertEq(verifyingContract, address(registry), "EIP-712 verifying contract");
    }

    function test_WhenDeployed_SupportsERC721AndERC4906() public view {
        assertTrue(registry.supportsInterface(type(IERC721).interfaceId), "ERC-721 interface");
        assertTrue(registry.supportsInterface(bytes4(0x49064906)), "ERC-4906 interface");
    }

    /*------------------------------ register ------------------------------*/

    function test_GivenNoURI_WhenRegister_MintsIdZeroToCallerWithEmptyURI() public {
        vm.prank(alice);
        uint256 agentId = registry.register();

        assertEq(agentId, 0, "first agent id");
        assertEq(registry.ownerOf(agentId), alice, "owner");
        assertEq(registry.balanceOf(alice), 1, "owner balance");
        _assertEq(registry.tokenURI(agentId), "", "token URI");
        assertEq(registry.getAgentWallet(agentId), alice, "agent wallet defaults to owner");
        _assertEq(registry.getMetadata(agentId, "agentWallet"), abi.encodePacked(alice), "agentWallet metadata");
    }

    function test_GivenNoURI_WhenRegister_EmitsTransferRegisteredAndAgentWalletMetadataSet() public {
        vm.expectEmit(address(registry));
        emit IERC721.Transfer(address(0), alice, 0);
        vm.expectEmit(address(registry));
        emit IIdentityRegistry.Registered(0, "", alice);
        vm.expectEmit(address(registry));
        emit IIdentityRegistry.MetadataSet(0, "agentWallet", "agentWallet", abi.encodePacked(alice));
        vm.prank(alice);
        registry.register();
    }

    function test_GivenURI_WhenRegister_StoresTokenURIAndAgentWallet() public {
        uint256 agentId = _register(alice);

        assertEq(agentId, 0, "agent id");
        assertEq(registry.ownerOf(agentId), alice, "owner");
        _assertEq(registry.tokenURI(agentId), URI, "token URI");
        assertEq(registry.getAgentWallet(agentId), alice, "agent wallet defaults to owner");
    }

    function test_GivenURI_WhenRegister_EmitsTransferMetadataUpdateRegisteredAndMetadataSet() public {
        vm.expectEmit(address(registry));
        emit IERC721.Transfer(address(0), alice, 0);
        vm.expectEmit(address(registry));
        emit IERC4906.MetadataUpdate(0);
        vm.expectEmit(address(registry));
        emit IIdentityRegistry.Registered(0, URI, alice);
        vm.expectEmit(address(registry));
        emit IIdentityRegistry.MetadataSet(0, "agentWallet", "agentWallet", abi.encodePacked(alice));
        _register(alice);
    }

    function test_GivenPriorAgents_WhenRegister_AssignsNextId() public {
        assertEq(_register(alice), 0, "first id");
        assertEq(_register(bob), 1, "second id");
        assertEq(_register(alice), 2, "third id");
        assertEq(registry.balanceOf(alice), 2, "alice balance");
        assertEq(registry.ownerOf(1), bob, "owner of second agent");
    }

    function test_GivenMetadata_WhenRegister_StoresEntriesAndEmitsMetadataSet() public {
        IIdentityRegistry.MetadataEntry[] memory entries = new IIdentityRegistry.MetadataEntry[](2);
        entries[0] = IIdentityRegistry.MetadataEntry("agentName", bytes("Translator"));
        entries[1] = IIdentityRegistry.MetadataEntry("category", hex"01");

        vm.expectEmit(address(registry));
        emit IIdentityRegistry.Registered(0, URI, alice);
        vm.expectEmit(address(registry));
        emit IIdentityRegistry.MetadataSet(0, "agentWallet", "agentWallet", abi.encodePacked(alice));
        vm.expectEmit(address(registry));
        emit IIdentityRegistry.MetadataSet(0, "agentName", "agentName", bytes("Translator"));
        vm.expectEmit(address(registry));
        emit IIdentityRegistry.MetadataSet(0, "category", "category", hex"01");
        vm.prank(alice);
        uint256 agentId = registry.register(URI, entries);

        _assertEq(registry.tokenURI(agentId), URI, "token URI");
        _assertEq(registry.getMetadata(agentId, "agentName"), bytes("Translator"), "first entry");
        _assertEq(registry.getMetadata(agentId, "category"), hex"01", "second entry");
        assertEq(registry.getAgentWallet(agentId), alice, "agent wallet");
    }

    function test_RevertWhen_RegisterMetadataUsesReservedKey() public {
        IIdentityRegistry.MetadataEntry[] memory entries = new IIdentityRegistry.MetadataEntry[](1);
        entries[0] = IIdentityRegistry.MetadataEntry("agentWallet", abi.encodePacked(bob));

        vm.expectRevert(abi.encodeWithSelector(IIdentityRegistry.ReservedMetadataKey.selector, "agentWallet"));
        vm.prank(alice);
        registry.register(URI, entries);
    }

    function test_RevertWhen_RegisterCallerIsContractWithoutReceiver() public {
        // This test contract has code and no onERC721Received.
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InvalidReceiver.selector, address(this)));
        registry.register(URI);
    }

    function test_GivenReceiverContract_WhenRegister_MintsToIt() public {
        SmartWalletMock smartWallet = new SmartWalletMock();
        uint256 agentId = smartWallet.register(registry, URI);

        assertEq(registry.ownerOf(agentId), address(smartWallet), "owner");
        assertEq(registry.getAgentWallet(agentId), address(smartWallet), "agent wallet");
    }

    /*------------------------------ setAgentURI ------------------------------*/

    function test_GivenOwner_WhenSetAgentURI_UpdatesURIAndEmitsURIUpdated() public {
        uint256 agentId = _register(alice);

        vm.expectEmit(address(registry));
        emit IERC4906.MetadataUpdate(agentId);
        vm.expectEmit(address(registry));
        emit IIdentityRegistry.URIUpdated(agentId, "https://agent.example/v2.json", alice);
        vm.prank(alice);
        registry.setAgentURI(agentId, "https://agent.example/v2.json");

        _assertEq(registry.tokenURI(agentId), "https://agent.example/v2.json", "updated URI");
    }

    function test_GivenTokenApproval_WhenSetAgentURI_UpdatesURI() public {
        uint256 agentId = _register(alice);
        vm.prank(alice);
        registry.approve(bob, agentId);

        vm.expectEmit(address(registry));
        emit IIdentityRegistry.URIUpdated(agentId, "ipfs://new", bob);
        vm.prank(bob);
        registry.setAgentURI(agentId, "ipfs://new");

        _assertEq(registry.tokenURI(agentId), "ipfs://new", "URI set by approved address");
    }

    function test_GivenOperator_WhenSetAgentURI_UpdatesURI() public {
        uint256 agentId = _register(alice);
        vm.prank(alice);
        registry.setApprovalForAll(operator, true);

        vm.prank(operator);
        registry.setAgentURI(agentId, "ipfs://new");

        _assertEq(registry.tokenURI(agentId), "ipfs://new", "URI set by operator");
    }

    function test_RevertWhen_SetAgentURICallerNotOwner() public {
        uint256 agentId = _register(alice);

        vm.expectRevert(_notAuthorized(agentId, stranger));
        vm.prank(stranger);
        registry.setAgentURI(agentId, "ipfs://hijack");
    }

    function test_RevertWhen_SetAgentURIAgentUnknown() public {
        vm.expectRevert(_nonexistent(UNKNOWN_AGENT));
        vm.prank(alice);
        registry.setAgentURI(UNKNOWN_AGENT, "ipfs://x");
    }

    /*------------------------------ metadata ------------------------------*/

    function test_GivenOwner_WhenSetMetadata_StoresValueAndEmitsMetadataSet() public {
        uint256 agentId = _register(alice);

        vm.expectEmit(address(registry));
        emit IIdentityRegistry.MetadataSet(agentId, "agentName", "agentName", bytes("Scribe"));
        vm.prank(alice);
        registry.setMetadata(agentId, "agentName", bytes("Scribe"));

        _assertEq(registry.getMetadata(agentId, "agentName"), bytes("Scribe"), "stored value");
    }

    function test_GivenOperator_WhenSetMetadata_OverwritesValue() public {
        uint256 agentId = _register(alice);
        vm.prank(alice);
        registry.setMetadata(agentId, "agentName", bytes("Scribe"));
        vm.prank(alice);
        registry.setApprovalForAll(operator, true);

        vm.prank(operator);
        registry.setMetadata(agentId, "agentName", bytes("Scribe II"));

        _assertEq(registry.getMetadata(agentId, "agentName"), bytes("Scribe II"), "overwritten value");
    }

    function test_RevertWhen_SetMetadataCallerNotOwner() public {
        uint256 agentId = _register(alice);

        vm.expectRevert(_notAuthorized(agentId, stranger));
        vm.prank(stranger);
        registry.setMetadata(agentId, "agentName", bytes("x"));
    }

    function test_RevertWhen_SetMetadataKeyReserved() public {
        uint256 agentId = _register(alice);

        vm.expectRevert(abi.encodeWithSelector(IIdentityRegistry.ReservedMetadataKey.selector, "agentWallet"));
        vm.prank(alice);
        registry.setMetadata(agentId, "agentWallet", abi.encodePacked(bob));
    }

    function test_RevertWhen_SetMetadataAgentUnknown() public {
        vm.expectRevert(_nonexistent(UNKNOWN_AGENT));
        vm.prank(alice);
        registry.setMetadata(UNKNOWN_AGENT, "agentName", bytes("x"));
    }

    function test_GivenUnknownAgentOrKey_WhenRead_ReturnsEmpty() public {
        uint256 agentId = _register(alice);

        assertEq(registry.getMetadata(agentId, "missing").length, 0, "unset key");
        assertEq(registry.getMetadata(UNKNOWN_AGENT, "agentWallet").length, 0, "unknown agent metadata");
        assertEq(registry.getAgentWallet(UNKNOWN_AGENT), address(0), "unknown agent wallet");
    }

    function testFuzz_GivenUnreservedKey_WhenSetMetadata_RoundTrips(string memory key, bytes memory value) public {
        vm.assume(keccak256(bytes(key)) != keccak256("agentWallet"));
        uint256 agentId = _register(alice);

        vm.prank(alice);
        registry.setMetadata(agentId, key, value);

        _assertEq(registry.getMetadata(agentId, key), value, "round-tripped value");
        assertEq(registry.getAgentWallet(agentId), alice, "agent wallet untouched");
    }

    /*------------------------------ setAgentWallet ------------------------------*/

    function test_GivenEOASignature_WhenSetAgentWallet_UpdatesWalletAndEmitsMetadataSet() public {
        uint256 agentId = _register(alice);
        uint256 deadline = block.timestamp + 60;
        bytes memory signature = _sign(walletKey, _digest(agentId, wallet, alice, deadline));

        vm.expectEmit(address(registry));
        emit IIdentityRegistry.MetadataSet(agentId, "agentWallet", "agentWallet", abi.encodePacked(wallet));
        vm.prank(alice);
        registry.setAgentWallet(agentId, wallet, deadline, signature);

        assertEq(registry.getAgentWallet(agentId), wallet, "new agent wallet");
        _assertEq(registry.getMetadata(agentId, "agentWallet"), abi.encodePacked(wallet), "agentWallet metadata");
    }

    function test_GivenOperator_WhenSetAgentWallet_SignatureNamesOwner() public {
        uint256 agentId = _register(alice);
        vm.prank(alice);
        registry.setApprovalForAll(operator, true);
        uint256 deadline = block.timestamp + 60;
        bytes memory signature = _sign(walletKey, _digest(agentId, wallet, alice, deadline));

        vm.prank(operator);
        registry.setAgentWallet(agentId, wallet, deadline, signature);

        assertEq(registry.getAgentWallet(agentId), wallet, "wallet set by operator");
    }

    function test_GivenERC1271Wallet_WhenSetAgentWallet_AcceptsContractApproval() public {
        uint256 agentId = _register(alice);
        SmartWalletMock smartWallet = new SmartWalletMock();
        uint256 deadline = block.timestamp + 60;
        smartWallet.setAcceptedDigest(_digest(agentId, address(smartWallet), alice, deadline));

        vm.prank(alice);
        registry.setAgentWallet(agentId, address(smartWallet), deadline, hex"1234");

        assertEq(registry.getAgentWallet(agentId), address(smartWallet), "contract wallet");
    }

    function test_GivenDeadlineAtBounds_WhenSetAgentWallet_Succeeds() public {
        uint256 agentId = _register(alice);
        vm.warp(1_000_000);

        vm.prank(alice);
        registry.setAgentWallet(agentId, wallet, block.timestamp, _sign(walletKey, _digest(agentId, wallet, alice, block.timestamp)));
        assertEq(registry.getAgentWallet(agentId), wallet, "deadline equal to now");

        uint256 farthest = block.timestamp + 5 minutes;
        vm.prank(alice);
        registry.setAgentWallet(agentId, bob, farthest, _signBob(agentId, farthest));
        assertEq(registry.getAgentWallet(agentId), bob, "deadline five minutes ahead");
    }

    function _signBob(uint256 agentId, uint256 deadline) internal view returns (bytes memory) {
        return _sign(uint256(keccak256(bytes("bob"))), _digest(agentId, bob, alice, deadline));
    }

    function test_RevertWhen_SetAgentWalletCallerNotOwner() public {
        uint256 agentId = _register(alice);
        uint256 deadline = block.timestamp + 60;
        bytes memory signature = _sign(walletKey, _digest(agentId, wallet, alice, deadline));

        vm.expectRevert(_notAuthorized(agentId, stranger));
        vm.prank(stranger);
        registry.setAgentWallet(agentId, wallet, deadline, signature);
    }

    function test_RevertWhen_SetAgentWalletAgentUnknown() public {
        vm.expectRevert(_nonexistent(UNKNOWN_AGENT));
        vm.prank(alice);
        registry.setAgentWallet(UNKNOWN_AGENT, wallet, block.timestamp, "");
    }

    function test_RevertWhen_SetAgentWalletToZeroAddress() public {
        uint256 agentId = _register(alice);

        vm.expectRevert(IIdentityRegistry.InvalidAgentWallet.selector);
        vm.prank(alice);
        registry.setAgentWallet(agentId, address(0), block.timestamp, "");
    }

    function test_RevertWhen_SetAgentWalletDeadlinePassed() public {
        uint256 agentId = _register(alice);
        vm.warp(1_000_000);
        uint256 deadline = block.timestamp - 1;
        bytes memory signature = _sign(walletKey, _digest(agentId, wallet, alice, deadline));

        vm.expectRevert(abi.encodeWithSelector(IIdentityRegistry.SignatureExpired.selector, deadline));
        vm.prank(alice);
        registry.setAgentWallet(agentId, wallet, deadline, signature);
    }

    function test_RevertWhen_SetAgentWalletDeadlineTooFar() public {
        uint256 agentId = _register(alice);
        uint256 deadline = block.timestamp + 5 minutes + 1;
        bytes memory signature = _sign(walletKey, _digest(agentId, wallet, alice, deadline));

        vm.expectRevert(
            abi.encodeWithSelector(IIdentityRegistry.DeadlineTooFar.selector, deadline, block.timestamp + 5 minutes)
        );
        vm.prank(alice);
        registry.setAgentWallet(agentId, wallet, deadline, signature);
    }

    function test_RevertWhen_SetAgentWalletSignedByAnotherKey() public {
        uint256 agentId = _register(alice);
        uint256 deadline = block.timestamp + 60;
        bytes memory signature = _sign(uint256(keccak256("intruder")), _digest(agentId, wallet, alice, deadline));

        vm.expectRevert(IIdentityRegistry.InvalidWalletSignature.selector);
        vm.prank(alice);
        registry.setAgentWallet(agentId, wallet, deadline, signature);
    }

    function test_RevertWhen_SetAgentWalletSignatureForAnotherAgent() public {
        uint256 first = _register(alice);
        uint256 second = _register(alice);
        uint256 deadline = block.timestamp + 60;
        bytes memory signature = _sign(walletKey, _digest(first, wallet, alice, deadline));

        vm.expectRevert(IIdentityRegistry.InvalidWalletSignature.selector);
        vm.prank(alice);
        registry.setAgentWallet(second, wallet, deadline, signature);
    }

    function test_RevertWhen_SetAgentWalletSignatureMalformed() public {
        uint256 agentId = _register(alice);

        vm.expectRevert(IIdentityRegistry.InvalidWalletSignature.selector);
        vm.prank(alice);
        registry.setAgentWallet(agentId, wallet, block.timestamp, hex"deadbeef");
    }

    function test_RevertWhen_SetAgentWalletERC1271Rejects() public {
        uint256 agentId = _register(alice);
        SmartWalletMock smartWallet = new SmartWalletMock();

        vm.expectRevert(IIdentityRegistry.InvalidWalletSignature.selector);
        vm.prank(alice);
        registry.setAgentWallet(agentId, address(smartWallet), block.timestamp, hex"1234");
    }

    /*------------------------------ unsetAgentWallet ------------------------------*/

    function test_GivenOwner_WhenUnsetAgentWallet_ClearsWalletAndEmitsMetadataSet() public {
        uint256 agentId = _register(alice);

        vm.expectEmit(address(registry));
        emit IIdentityRegistry.MetadataSet(agentId, "agentWallet", "agentWallet", "");
        vm.prank(alice);
        registry.unsetAgentWallet(agentId);

        assertEq(registry.getAgentWallet(agentId), address(0), "cleared wallet");
        assertEq(registry.getMetadata(agentId, "agentWallet").length, 0, "cleared metadata");
    }

    function test_RevertWhen_UnsetAgentWalletCallerNotOwner() public {
        uint256 agentId = _register(alice);

        vm.expectRevert(_notAuthorized(agentId, stranger));
        vm.prank(stranger);
        registry.unsetAgentWallet(agentId);
    }

    function test_RevertWhen_UnsetAgentWalletAgentUnknown() public {
        vm.expectRevert(_nonexistent(UNKNOWN_AGENT));
        vm.prank(alice);
        registry.unsetAgentWallet(UNKNOWN_AGENT);
    }

    /*------------------------------ transfers ------------------------------*/

    function test_GivenTransfer_ClearsAgentWalletBeforeTransferEvent() public {
        uint256 agentId = _register(alice);

        vm.expectEmit(address(registry));
        emit IIdentityRegistry.MetadataSet(agentId, "agentWallet", "agentWallet", "");
        vm.expectEmit(address(registry));
        emit IERC721.Transfer(alice, bob, agentId);
        vm.prank(alice);
        registry.transferFrom(alice, bob, agentId);

        assertEq(registry.ownerOf(agentId), bob, "new owner");
        assertEq(registry.getAgentWallet(agentId), address(0), "wallet cleared for the new owner");
        _assertEq(registry.tokenURI(agentId), URI, "URI kept");
    }

    function test_GivenTransfer_WhenFormerOwnerSetsURI_Reverts() public {
        uint256 agentId = _register(alice);
        vm.prank(alice);
        registry.transferFrom(alice, bob, agentId);

        vm.expectRevert(_notAuthorized(agentId, alice));
        vm.prank(alice);
        registry.setAgentURI(agentId, "ipfs://stale");
    }

    function test_GivenTransfer_WhenNewOwnerSetsURI_Succeeds() public {
        uint256 agentId = _register(alice);
        vm.prank(alice);
        registry.transferFrom(alice, bob, agentId);

        vm.prank(bob);
        registry.setAgentURI(agentId, "ipfs://bob");

        _assertEq(registry.tokenURI(agentId), "ipfs://bob", "URI set by new owner");
    }

    /*------------------------------ isAuthorizedOrOwner ------------------------------*/

    function test_WhenIsAuthorizedOrOwner_ReflectsOwnershipAndApprovals() public {
        uint256 agentId = _register(alice);
        vm.startPrank(alice);
        registry.approve(bob, agentId);
        registry.setApprovalForAll(operator, true);
        vm.stopPrank();

        assertTrue(registry.isAuthorizedOrOwner(alice, agentId), "owner");
        assertTrue(registry.isAuthorizedOrOwner(bob, agentId), "token approval");
        assertTrue(registry.isAuthorizedOrOwner(operator, agentId), "operator");
        assertFalse(registry.isAuthorizedOrOwner(stranger, agentId), "stranger");
        assertFalse(registry.isAuthorizedOrOwner(address(0), agentId), "zero address");
    }

    function test_RevertWhen_IsAuthorizedOrOwnerAgentUnknown() public {
        vm.expectRevert(_nonexistent(UNKNOWN_AGENT));
        registry.isAuthorizedOrOwner(alice, UNKNOWN_AGENT);
    }
}
