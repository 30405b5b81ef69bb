// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IReputationRegistry
/// @notice ERC-8004 ("Trustless Agents") Reputation Registry. Any address except the agent's owner
/// and approved addresses may give an agent feedback: a signed fixed-point `value` with
/// `valueDecimals` (0-18), two optional tags, and optional off-chain references (endpoint, feedback
/// file URI and its hash). Feedback is numbered per (agent, client) from 1; a client may revoke its
/// own feedback; anyone may append responses to any feedback.
///
/// Stored on chain: value, valueDecimals, tag1, tag2 and the revoked flag. `endpoint`, `feedbackURI`
/// and `feedbackHash` are only emitted in {NewFeedback}.
///
/// The functions and events mirror `ReputationRegistryUpgradeable` v2.0.0 of
/// github.com/erc-8004/erc-8004-contracts, deployed at 0x8004BAa17C55a88189AE136b182e5fdA19dE9b63 on
/// Base and other chains.
interface IReputationRegistry {
    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice `clientAddress` gave feedback number `feedbackIndex` to `agentId`.
    /// @param indexedTag1 `tag1` again, as a topic (its keccak256) for filtering.
    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );

    /// @notice `clientAddress` revoked its feedback `feedbackIndex` to `agentId`.
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);

    /// @notice `responder` appended a response to feedback `feedbackIndex` of `clientAddress` to `agentId`.
    event ResponseAppended(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        address indexed responder,
        string responseURI,
        bytes32 responseHash
    );

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    // Feedback to an unknown agent reverts with the identity registry's `ERC721NonexistentToken(agentId)`.

    /// @notice The identity registry given to the constructor is the zero address.
    error InvalidIdentityRegistry();

    /// @notice `valueDecimals` is above 18.
    error ValueDecimalsTooLarge(uint8 valueDecimals);

    /// @notice `value` is outside [-1e38, 1e38].
    error ValueOutOfRange(int128 value);

    /// @notice The caller owns `agentId` or is approved for it, and so may not rate it.
    error SelfFeedbackNotAllowed(uint256 agentId, address caller);

    /// @notice There is no feedback `feedbackIndex` (0, or above the client's last index).
    error FeedbackNotFound(uint256 agentId, address clientAddress, uint64 feedbackIndex);

    /// @notice The feedback is already revoked.
    error FeedbackAlreadyRevoked(uint256 agentId, address clientAddress, uint64 feedbackIndex);

    /// @notice A response must carry a URI.
    error EmptyResponseURI();

    /// @notice {getSummary} needs a non-empty client list (an unfiltered summary invites Sybil spam).
    error ClientAddressesRequired();

    /*//////////////////////////////////////////////////////////////
                                 WRITES
    //////////////////////////////////////////////////////////////*/

    /// @notice Gives feedback to `agentId` as the caller. Emits {NewFeedback} with the new
    /// 1-based index, which is {getLastIndex} afterwards.
    /// @param value Signed fixed-point value, |value| <= 1e38 (e.g. 9977 with 2 decimals = 99.77).
    /// @param valueDecimals Decimals of `value`, at most 18.
    /// @param tag1 Optional tag, filterable on chain and as an event topic.
    /// @param tag2 Optional second tag.
    /// @param endpoint Optional endpoint URI the feedback is about (emitted only).
    /// @param feedbackURI Optional off-chain feedback file (emitted only).
    /// @param feedbackHash Optional keccak256 of the feedback file (emitted only).
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external;

    /// @notice Revokes the caller's feedback `feedbackIndex` to `agentId`. Emits {FeedbackRevoked}.
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external;

    /// @notice Appends a response (by anyone) to existing feedback, revoked or not. Emits {ResponseAppended}.
    /// @param responseHash Optional keccak256 of the response file.
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external;

    /*//////////////////////////////////////////////////////////////
                                 READS
    //////////////////////////////////////////////////////////////*/

    /// @notice The identity registry whose agents this registry rates.
    function getIdentityRegistry() external view returns (address);

    /// @notice Number of feedbacks `clientAddress` has given `agentId` (revoked included), which is
    /// also the index of its latest one.
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64);

    /// @notice One stored feedback. Reverts with {FeedbackNotFound} if it does not exist.
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked);

    /// @notice Average of the non-revoked feedback from `clientAddresses` matching the tags (an empty
    /// tag matches all). Values are averaged at 18 decimals, then expressed with the most frequent
    /// `valueDecimals` among the matches (ties: the smaller), truncating toward zero.
    /// @return count Number of matching feedbacks; with none, all three results are 0.
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals);

    /// @notice All feedback from `clientAddresses` (all clients of the agent if empty) matching the
    /// tags, client by client in index order; revoked feedback only if `includeRevoked`.
    function readAllFeedback(
        uint256 agentId,
        address[] calldata clientAddresses,
        string calldata tag1,
        string calldata tag2,
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
        );

    /// @notice Number of responses, narrowed by optional filters: `clientAddress` zero counts all
    /// feedback of the agent; `feedbackIndex` zero counts all feedback of the client; an empty
    /// `responders` counts every responder.
    function getResponseCount(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        address[] calldata responders
    ) external view returns (uint64 count);

    /// @notice Every address that has given `agentId` feedback, in order of first feedback.
    function getClients(uint256 agentId) external view returns (address[] memory);

    /// @notice The version of the official implementation whose interface this registry follows.
    function getVersion() external pure returns (string memory);
}
