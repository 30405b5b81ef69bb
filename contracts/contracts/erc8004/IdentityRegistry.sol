// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IIdentityRegistry} from "./IIdentityRegistry.sol";

/// @title IdentityRegistry
/// @notice ERC-8004 Identity Registry for local chains. Same ABI and behaviour as the official
/// `IdentityRegistryUpgradeable` v2.0.0 (token name "AgentIdentity", symbol "AGENT", ids from 0,
/// EIP-712 domain "ERC8004IdentityRegistry"/"1"), so clients and indexers work unchanged against
/// it and against the Base deployment.
/// @dev Deliberately not upgradeable: a plain constructor, no proxy, no owner, no `initialize`,
/// `upgradeToAndCall` or `Ownable` functions. Reverts use custom errors where the official
/// registry uses require strings. Not meant for production deployment.
contract IdentityRegistry is ERC721URIStorage, EIP712, IIdentityRegistry {
    /// @dev The reserved metadata key for the payment wallet.
    string private constant AGENT_WALLET_KEY = "agentWallet";
    bytes32 private constant AGENT_WALLET_KEY_HASH = keccak256(bytes(AGENT_WALLET_KEY));

    bytes32 private constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");

    /// @dev How far ahead a wallet signature's deadline may be.
    uint256 private constant MAX_DEADLINE_DELAY = 5 minutes;

    /// @dev The id the next registered agent gets.
    uint256 private _nextAgentId;

    /// @dev agentId => key => value, including the reserved `agentWallet` (20 packed bytes or empty).
    mapping(uint256 agentId => mapping(string metadataKey => bytes metadataValue)) private _metadata;

    constructor() ERC721("AgentIdentity", "AGENT") EIP712("ERC8004IdentityRegistry", "1") {}

    /*//////////////////////////////////////////////////////////////
                              REGISTRATION
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IIdentityRegistry
    function register() external returns (uint256 agentId) {
        agentId = _mintAgent("", false);
    }

    /// @inheritdoc IIdentityRegistry
    function register(string memory agentURI) external returns (uint256 agentId) {
        agentId = _mintAgent(agentURI, true);
    }

    /// @inheritdoc IIdentityRegistry
    function register(string memory agentURI, MetadataEntry[] memory metadata) external returns (uint256 agentId) {
        agentId = _mintAgent(agentURI, true);
        for (uint256 i; i < metadata.length; ++i) {
            _setMetadata(agentId, metadata[i].metadataKey, metadata[i].metadataValue);
        }
    }

    /*//////////////////////////////////////////////////////////////
                              URI AND METADATA
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IIdentityRegistry
    function setAgentURI(uint256 agentId, string calldata newURI) external {
        _requireAuthorized(agentId);
        _setTokenURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    /// @inheritdoc IIdentityRegistry
    function getMetadata(uint256 agentId, string memory metadataKey) external view returns (bytes memory) {
        return _metadata[agentId][metadataKey];
    }

    /// @inheritdoc IIdentityRegistry
    function setMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) external {
        _requireAuthorized(agentId);
        _setMetadata(agentId, metadataKey, metadataValue);
    }

    /*//////////////////////////////////////////////////////////////
                              AGENT WALLET
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IIdentityRegistry
    function getAgentWallet(uint256 agentId) external view returns (address) {
        return address(bytes20(_metadata[agentId][AGENT_WALLET_KEY]));
    }

    /// @inheritdoc IIdentityRegistry
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature)
        external
    {
        address owner = _requireAuthorized(agentId);
        if (newWallet == address(0)) revert InvalidAgentWallet();
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        if (deadline > block.timestamp + MAX_DEADLINE_DELAY) {
            revert DeadlineTooFar(deadline, block.timestamp + MAX_DEADLINE_DELAY);
        }

        bytes32 digest =
            _hashTypedDataV4(keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, owner, deadline)));
        // ECDSA first, whatever the wallet's code (an EIP-7702 account has code and still signs with
        // its key), then ERC-1271, as the official registry does.
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
        if (
            (err != ECDSA.RecoverError.NoError || recovered != newWallet)
                && !SignatureChecker.isValidERC1271SignatureNowCalldata(newWallet, digest, signature)
        ) revert InvalidWalletSignature();

        _writeAgentWallet(agentId, abi.encodePacked(newWallet));
    }

    /// @inheritdoc IIdentityRegistry
    function unsetAgentWallet(uint256 agentId) external {
        _requireAuthorized(agentId);
        _writeAgentWallet(agentId, "");
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IIdentityRegistry
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool) {
        return _isAuthorized(ownerOf(agentId), spender, agentId);
    }

    /// @inheritdoc IIdentityRegistry
    function getVersion() external pure returns (string memory) {
        return "2.0.0";
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNALS
    //////////////////////////////////////////////////////////////*/

    /// @dev Mints the next id to the caller with the caller as agent wallet. Events in the official
    /// order: Transfer, MetadataUpdate (ERC-4906, only with a URI), Registered, MetadataSet(agentWallet).
    function _mintAgent(string memory agentURI, bool withURI) private returns (uint256 agentId) {
        agentId = _nextAgentId++;
        bytes memory wallet = abi.encodePacked(msg.sender);
        // Stored before the receiver hook of `_safeMint` runs, emitted after `Registered`.
        _metadata[agentId][AGENT_WALLET_KEY] = wallet;
        _safeMint(msg.sender, agentId);
        if (withURI) _setTokenURI(agentId, agentURI);
        emit Registered(agentId, agentURI, msg.sender);
        emit MetadataSet(agentId, AGENT_WALLET_KEY, AGENT_WALLET_KEY, wallet);
    }

    function _setMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) private {
        if (keccak256(bytes(metadataKey)) == AGENT_WALLET_KEY_HASH) revert ReservedMetadataKey(metadataKey);
        _metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    function _writeAgentWallet(uint256 agentId, bytes memory wallet) private {
        _metadata[agentId][AGENT_WALLET_KEY] = wallet;
        emit MetadataSet(agentId, AGENT_WALLET_KEY, AGENT_WALLET_KEY, wallet);
    }

    /// @dev Reverts unless the caller is the owner of `agentId` or approved for it; returns the owner.
    function _requireAuthorized(uint256 agentId) private view returns (address owner) {
        owner = ownerOf(agentId);
        if (!_isAuthorized(owner, msg.sender, agentId)) revert NotAuthorized(agentId, msg.sender);
    }

    /// @dev Clears the agent wallet on every transfer (not on mint), before the transfer itself, so a
    /// new owner has to prove a wallet of its own.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address) {
        if (_ownerOf(tokenId) != address(0) && to != address(0)) _writeAgentWallet(tokenId, "");
        return super._update(to, tokenId, auth);
    }
}
