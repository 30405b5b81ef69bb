// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IIdentityRegistry} from "./IIdentityRegistry.sol";
import {IReputationRegistry} from "./IReputationRegistry.sol";

/// @title ReputationRegistry
/// @notice ERC-8004 Reputation Registry for local chains. Same ABI and behaviour as the official
/// `ReputationRegistryUpgradeable` v2.0.0, so clients and indexers work unchanged against it and
/// against the Base deployment.
/// @dev Deliberately not upgradeable: the identity registry is fixed in the constructor instead of
/// `initialize`, and there is no proxy, owner or `upgradeToAndCall`. Reverts use custom errors where
/// the official registry uses require strings. Not meant for production deployment.
contract ReputationRegistry is IReputationRegistry {
    /// @dev Bound on |value|, as in the official registry: keeps 18-decimal sums far from overflow.
    int128 private constant MAX_ABS_VALUE = 1e38;
    uint8 private constant MAX_DECIMALS = 18;

    struct Feedback {
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        string tag1;
        string tag2;
    }

    /// @dev Tag filter; a zero hash matches every tag.
    struct Filter {
        bytes32 tag1Hash;
        bytes32 tag2Hash;
        bool includeRevoked;
    }

    /// @dev The columns returned by {readAllFeedback}.
    struct FeedbackList {
        address[] clients;
        uint64[] feedbackIndexes;
        int128[] values;
        uint8[] valueDecimals;
        string[] tag1s;
        string[] tag2s;
        bool[] revokedStatuses;
    }

    IIdentityRegistry private immutable _identityRegistry;

    /// @dev agentId => client => its feedback; feedback index i is element i - 1, so the length is
    /// the last index.
    mapping(uint256 agentId => mapping(address client => Feedback[])) private _feedback;

    /// @dev agentId => clients in order of first feedback.
    mapping(uint256 agentId => address[]) private _clients;

    /// @dev agentId => client => feedbackIndex => responses from all responders.
    mapping(uint256 agentId => mapping(address client => mapping(uint64 feedbackIndex => uint64))) private
        _responseTotal;

    /// @dev agentId => client => feedbackIndex => responder => responses from that responder.
    mapping(
        uint256 agentId => mapping(address client => mapping(uint64 feedbackIndex => mapping(address => uint64)))
    ) private _responseCount;

    /// @param identityRegistry_ The ERC-8004 identity registry whose agents are rated.
    constructor(address identityRegistry_) {
        if (identityRegistry_ == address(0)) revert InvalidIdentityRegistry();
        _identityRegistry = IIdentityRegistry(identityRegistry_);
    }

    /*//////////////////////////////////////////////////////////////
                                 WRITES
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IReputationRegistry
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string memory endpoint, // memory rather than calldata: one stack slot each, or the emit is too deep
        string memory feedbackURI,
        bytes32 feedbackHash
    ) external {
        if (valueDecimals > MAX_DECIMALS) revert ValueDecimalsTooLarge(valueDecimals);
        if (value > MAX_ABS_VALUE || value < -MAX_ABS_VALUE) revert ValueOutOfRange(value);
        // Also reverts (ERC721NonexistentToken) for an unknown agent.
        if (_identityRegistry.isAuthorizedOrOwner(msg.sender, agentId)) {
            revert SelfFeedbackNotAllowed(agentId, msg.sender);
        }

        Feedback[] storage list = _feedback[agentId][msg.sender];
        if (list.length == 0) _clients[agentId].push(msg.sender);
        list.push(Feedback(value, valueDecimals, false, tag1, tag2));

        emit NewFeedback(
            agentId,
            msg.sender,
            uint64(list.length),
            value,
            valueDecimals,
            tag1,
            tag1,
            tag2,
            endpoint,
            feedbackURI,
            feedbackHash
        );
    }

    /// @inheritdoc IReputationRegistry
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        Feedback storage fb = _feedbackAt(agentId, msg.sender, feedbackIndex);
        if (fb.isRevoked) revert FeedbackAlreadyRevoked(agentId, msg.sender, feedbackIndex);
        fb.isRevoked = true;
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    /// @inheritdoc IReputationRegistry
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external {
        _feedbackAt(agentId, clientAddress, feedbackIndex);
        if (bytes(responseURI).length == 0) revert EmptyResponseURI();
        ++_responseTotal[agentId][clientAddress][feedbackIndex];
        ++_responseCount[agentId][clientAddress][feedbackIndex][msg.sender];
        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI, responseHash);
    }

    /*//////////////////////////////////////////////////////////////
                                 READS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IReputationRegistry
    function getIdentityRegistry() external view returns (address) {
        return address(_identityRegistry);
    }

    /// @inheritdoc IReputationRegistry
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return uint64(_feedback[agentId][clientAddress].length);
    }

    /// @inheritdoc IReputationRegistry
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        Feedback storage fb = _feedbackAt(agentId, clientAddress, feedbackIndex);
        return (fb.value, fb.valueDecimals, fb.tag1, fb.tag2, fb.isRevoked);
    }

    /// @inheritdoc IReputationRegistry
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals)
    {
        if (clientAddresses.length == 0) revert ClientAddressesRequired();
        int256 sum;
        uint64[19] memory perDecimals;
        (sum, count, perDecimals) = _sum(agentId, clientAddresses, Filter(_tagHash(tag1), _tagHash(tag2), false));
        if (count == 0) return (0, 0, 0);

        // The most frequent decimals, the smaller on a tie.
        for (uint8 d = 1; d <= MAX_DECIMALS; ++d) {
            if (perDecimals[d] > perDecimals[summaryValueDecimals]) summaryValueDecimals = d;
        }
        summaryValue = int128(sum / int256(uint256(count)) / int256(10 ** (MAX_DECIMALS - summaryValueDecimals)));
    }

    /// @inheritdoc IReputationRegistry
    function readAllFeedback(
        uint256 agentId,
        address[] memory clientAddresses, // memory rather than calldata: fewer stack slots
        string memory tag1,
        string memory tag2,
        bool includeRevoked
    )
        external
        view
        returns (
            address[] memory clients,
            uint64[] memory feedbackIndexes,
            int128[] memory values,
            uint8[] memory valueDecimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revokedStatuses
        )
    {
        FeedbackList memory out = _collect(agentId, clientAddresses, tag1, tag2, includeRevoked);
        return (out.clients, out.feedbackIndexes, out.values, out.valueDecimals, out.tag1s, out.tag2s, out.revokedStatuses);
    }

    /// @inheritdoc IReputationRegistry
    function getResponseCount(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        address[] calldata responders
    ) external view returns (uint64 count) {
        if (clientAddress != address(0) && feedbackIndex != 0) {
            return _responses(agentId, clientAddress, feedbackIndex, responders);
        }
        address[] memory clients;
        if (clientAddress == address(0)) {
            clients = _clients[agentId];
        } else {
            clients = new address[](1);
            clients[0] = clientAddress;
        }
        for (uint256 i; i < clients.length; ++i) {
            uint64 last = uint64(_feedback[agentId][clients[i]].length);
            for (uint64 j = 1; j <= last; ++j) {
                count += _responses(agentId, clients[i], j, responders);
            }
        }
    }

    /// @inheritdoc IReputationRegistry
    function getClients(uint256 agentId) external view returns (address[] memory) {
        return _clients[agentId];
    }

    /// @inheritdoc IReputationRegistry
    function getVersion() external pure returns (string memory) {
        return "2.0.0";
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNALS
    //////////////////////////////////////////////////////////////*/

    /// @dev The feedback at a 1-based index; reverts with {FeedbackNotFound} if there is none.
    function _feedbackAt(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        private
        view
        returns (Feedback storage)
    {
        Feedback[] storage list = _feedback[agentId][clientAddress];
        if (feedbackIndex == 0 || feedbackIndex > list.length) {
            revert FeedbackNotFound(agentId, clientAddress, feedbackIndex);
        }
        return list[feedbackIndex - 1];
    }

    /// @dev Sum at 18 decimals, count, and count per `valueDecimals` of the matching feedback of `clients`.
    function _sum(uint256 agentId, address[] calldata clients, Filter memory filter)
        private
        view
        returns (int256 sum, uint64 count, uint64[19] memory perDecimals)
    {
        for (uint256 i; i < clients.length; ++i) {
            Feedback[] storage list = _feedback[agentId][clients[i]];
            for (uint256 j; j < list.length; ++j) {
                Feedback storage fb = list[j];
                if (!_matches(fb, filter)) continue;
                sum += int256(fb.value) * int256(10 ** (MAX_DECIMALS - fb.valueDecimals));
                ++perDecimals[fb.valueDecimals];
                ++count;
            }
        }
    }

    function _responses(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        private
        view
        returns (uint64 count)
    {
        if (responders.length == 0) return _responseTotal[agentId][clientAddress][feedbackIndex];
        for (uint256 k; k < responders.length; ++k) {
            count += _responseCount[agentId][clientAddress][feedbackIndex][responders[k]];
        }
    }

    /// @dev Matching feedback of `clients` (all the agent's clients if empty) in client order, then
    /// index order; two passes to size the arrays.
    function _collect(
        uint256 agentId,
        address[] memory clients,
        string memory tag1,
        string memory tag2,
        bool includeRevoked
    ) private view returns (FeedbackList memory out) {
        if (clients.length == 0) clients = _clients[agentId];
        Filter memory filter = Filter(_tagHash(tag1), _tagHash(tag2), includeRevoked);
        uint256 total;
        for (uint256 i; i < clients.length; ++i) {
            Feedback[] storage list = _feedback[agentId][clients[i]];
            for (uint256 j; j < list.length; ++j) {
                if (_matches(list[j], filter)) ++total;
            }
        }
        out = FeedbackList(
            new address[](total),
            new uint64[](total),
            new int128[](total),
            new uint8[](total),
            new string[](total),
            new string[](total),
            new bool[](total)
        );
        uint256 k;
        for (uint256 i; i < clients.length; ++i) {
            Feedback[] storage list = _feedback[agentId][clients[i]];
            for (uint256 j; j < list.length; ++j) {
                Feedback storage fb = list[j];
                if (!_matches(fb, filter)) continue;
                out.clients[k] = clients[i];
                out.feedbackIndexes[k] = uint64(j + 1);
                out.values[k] = fb.value;
                out.valueDecimals[k] = fb.valueDecimals;
                out.tag1s[k] = fb.tag1;
                out.tag2s[k] = fb.tag2;
                out.revokedStatuses[k] = fb.isRevoked;
                ++k;
            }
        }
    }

    function _matches(Feedback storage fb, Filter memory filter) private view returns (bool) {
        if (fb.isRevoked && !filter.includeRevoked) return false;
        if (filter.tag1Hash != 0 && keccak256(bytes(fb.tag1)) != filter.tag1Hash) return false;
        if (filter.tag2Hash != 0 && keccak256(bytes(fb.tag2)) != filter.tag2Hash) return false;
        return true;
    }

    /// @dev keccak256 of a tag filter; zero for the empty tag, which matches everything.
    function _tagHash(string memory tag) private pure returns (bytes32) {
        return bytes(tag).length == 0 ? bytes32(0) : keccak256(bytes(tag));
    }
}
