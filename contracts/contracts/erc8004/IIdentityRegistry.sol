// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC721Metadata} from "@openzeppelin/contracts/token/ERC721/extensions/IERC721Metadata.sol";

/// @title IIdentityRegistry
/// @notice ERC-8004 ("Trustless Agents") Identity Registry. An agent is an ERC-721 token: its
/// `agentId` is the token id (assigned incrementally from 0) and its `agentURI` is the token URI,
/// which resolves to the agent's registration file. The owner may delegate management to ERC-721
/// approved addresses and operators.
///
/// The functions and events mirror `IdentityRegistryUpgradeable` v2.0.0 of
/// github.com/erc-8004/erc-8004-contracts, deployed at 0x8004A169FB4a3325136EB29fA0ceB6D2e539a432 on
/// Base and other chains, so one client works against the official registry and a local copy.
///
/// The reserved metadata key `agentWallet` holds the address where the agent receives payments
/// (20 bytes, `abi.encodePacked(address)`). It is set to the owner on registration, can only be
/// changed through {setAgentWallet} with a signature from the new wallet, and is cleared on
/// every transfer.
interface IIdentityRegistry is IERC721Metadata {
    /// @notice An on-chain metadata entry given at registration.
    /// @param metadataKey Key, any string except the reserved `agentWallet`.
    /// @param metadataValue Arbitrary bytes.
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A new agent was minted to `owner`. Emitted after the ERC-721 `Transfer`, before the
    /// `MetadataSet` of the reserved `agentWallet` key and of any registration metadata.
    /// @param agentURI The registration file URI; empty when registered without one.
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);

    /// @notice An on-chain metadata value was set, including the reserved `agentWallet` key (on
    /// registration, {setAgentWallet}, {unsetAgentWallet} and transfers, where it is cleared).
    /// @param indexedMetadataKey The key again, as a topic (its keccak256) for filtering.
    event MetadataSet(
        uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue
    );

    /// @notice The agent URI was changed by {setAgentURI}.
    /// @param updatedBy The caller: the owner or an approved address or operator.
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    // An unknown `agentId` reverts with OpenZeppelin's `ERC721NonexistentToken(agentId)`.

    /// @notice The caller is neither the owner of `agentId` nor approved for it.
    error NotAuthorized(uint256 agentId, address caller);

    /// @notice `agentWallet` cannot be set through metadata; use {setAgentWallet}.
    error ReservedMetadataKey(string metadataKey);

    /// @notice The new agent wallet is the zero address.
    error InvalidAgentWallet();

    /// @notice The wallet signature's deadline has passed.
    error SignatureExpired(uint256 deadline);

    /// @notice The wallet signature's deadline is more than {setAgentWallet}'s 5 minutes away.
    error DeadlineTooFar(uint256 deadline, uint256 maxDeadline);

    /// @notice The signature is neither an ECDSA signature by the new wallet nor accepted by it
    /// through ERC-1271.
    error InvalidWalletSignature();

    /*//////////////////////////////////////////////////////////////
                              REGISTRATION
    //////////////////////////////////////////////////////////////*/

    /// @notice Mints a new agent to the caller without a URI (set it later with {setAgentURI}).
    /// @return agentId The new agent's id.
    function register() external returns (uint256 agentId);

    /// @notice Mints a new agent to the caller with its registration file URI.
    function register(string memory agentURI) external returns (uint256 agentId);

    /// @notice Mints a new agent to the caller with its URI and on-chain metadata.
    /// @dev Reverts with {ReservedMetadataKey} if an entry uses `agentWallet`.
    function register(string memory agentURI, MetadataEntry[] memory metadata) external returns (uint256 agentId);

    /*//////////////////////////////////////////////////////////////
                              URI AND METADATA
    //////////////////////////////////////////////////////////////*/

    /// @notice Replaces the agent URI. Owner or approved only. Emits {URIUpdated}.
    function setAgentURI(uint256 agentId, string calldata newURI) external;

    /// @notice Returns the metadata value under `metadataKey`; empty if unset or the agent is unknown.
    function getMetadata(uint256 agentId, string memory metadataKey) external view returns (bytes memory);

    /// @notice Sets a metadata value. Owner or approved only; `agentWallet` is refused. Emits {MetadataSet}.
    function setMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) external;

    /*//////////////////////////////////////////////////////////////
                              AGENT WALLET
    //////////////////////////////////////////////////////////////*/

    /// @notice The agent's payment wallet; zero if cleared (after a transfer) or the agent is unknown.
    function getAgentWallet(uint256 agentId) external view returns (address);

    /// @notice Sets the agent wallet after proof that `newWallet` agrees: an EIP-712 signature over
    /// `AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)` in the domain
    /// (name "ERC8004IdentityRegistry", version "1"), either ECDSA by `newWallet` or accepted by
    /// `newWallet` through ERC-1271. `deadline` must be within the next 5 minutes. Owner or approved
    /// only.
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature)
        external;

    /// @notice Clears the agent wallet. Owner or approved only.
    function unsetAgentWallet(uint256 agentId) external;

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice Whether `spender` is the owner of `agentId` or approved for it (token or operator
    /// approval). Reverts with `ERC721NonexistentToken` for an unknown agent.
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool);

    /// @notice The version of the official implementation whose interface this registry follows.
    function getVersion() external pure returns (string memory);
}
