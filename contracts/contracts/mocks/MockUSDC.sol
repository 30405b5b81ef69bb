// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

import {IERC3009} from "../interfaces/IERC3009.sol";

/// @title MockUSDC
/// @notice A stand-in for Circle's USDC (FiatToken v2.2) for local chains and tests: "USD Coin" /
/// "USDC" with 6 decimals, EIP-2612 `permit`, EIP-3009 transfer/receive/cancel authorizations and a
/// blacklist, with the same EIP-712 domain (name "USD Coin", version "2"), type hashes, validity
/// checks and blacklist rules as USDC.
///
/// @dev NEVER DEPLOY THIS CONTRACT TO A PUBLIC CHAIN: {mint} is open to anyone (a faucet).
///
/// Like FiatToken v2.2's `balanceAndBlacklistStates`, an account's balance and its blacklist flag
/// share one storage word: the flag is the high bit (bit 255), the balance the low 255 bits. A
/// transfer therefore checks the blacklist without reading another slot. Total supply is capped at
/// 2^255 - 1 so no balance can ever reach the flag bit.
///
/// The ERC-20 core is written here rather than inherited from OpenZeppelin's `ERC20`, whose balance
/// storage is private and cannot hold the flag. Revert reasons use OpenZeppelin's ERC-6093 errors for
/// ERC-20 failures and `MockUSDC_*` errors for the rest.
///
/// Not modelled: pausing, minter allowances, burning, rescuing, the upgradeable proxy, and the
/// `bytes signature` overloads of v2.2 other than {transferWithAuthorization}'s (the one x402
/// payments are settled with). Signatures are checked with OpenZeppelin's `SignatureChecker`, so (as
/// in v2.2) a signer with code is asked through ERC-1271.
contract MockUSDC is IERC20Metadata, IERC20Permit, IERC3009, IERC20Errors, EIP712, Nonces, Ownable {
    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice EIP-2612 permit type hash.
    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    /// @notice EIP-3009 type hash of {transferWithAuthorization}, as in FiatToken v2.2.
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    /// @notice EIP-3009 type hash of {receiveWithAuthorization}, as in FiatToken v2.2.
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    /// @notice EIP-3009 type hash of {cancelAuthorization}, as in FiatToken v2.2.
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH = keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    /// @dev High bit of a balance word: the account is blacklisted.
    uint256 private constant _BLACKLIST_FLAG = 1 << 255;

    /// @dev Low 255 bits of a balance word: the balance. Also the cap on total supply, which keeps
    /// every balance clear of the flag bit.
    uint256 private constant _BALANCE_MASK = _BLACKLIST_FLAG - 1;

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @dev Balance (low 255 bits) and blacklist flag (bit 255) of each account.
    mapping(address account => uint256) private _balanceAndBlacklistStates;

    mapping(address owner => mapping(address spender => uint256)) private _allowances;

    /// @dev EIP-3009 nonces that are used or canceled.
    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizationStates;

    uint256 private _totalSupply;

    address private _blacklister;

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice `account` was blacklisted.
    event Blacklisted(address indexed account);

    /// @notice `account` was removed from the blacklist.
    event UnBlacklisted(address indexed account);

    /// @notice The blacklister role moved to `newBlacklister`.
    event BlacklisterChanged(address indexed newBlacklister);

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice `account` is blacklisted and may not send, receive, approve or be approved.
    error MockUSDC_Blacklisted(address account);

    /// @notice Only the blacklister may call this; `caller` is not it.
    error MockUSDC_CallerNotBlacklister(address caller);

    /// @notice The blacklister cannot be the zero address.
    error MockUSDC_InvalidBlacklister();

    /// @notice Minting `amount` would take total supply above 2^255 - 1.
    error MockUSDC_SupplyCapExceeded(uint256 amount);

    /// @notice The permit's deadline has passed.
    error MockUSDC_PermitExpired(uint256 deadline);

    /// @notice The signature is not the expected signer's.
    error MockUSDC_InvalidSignature();

    /// @notice The authorization is not valid yet: the block time is not after `validAfter`.
    error MockUSDC_AuthorizationNotYetValid(uint256 validAfter);

    /// @notice The authorization has expired: the block time is not before `validBefore`.
    error MockUSDC_AuthorizationExpired(uint256 validBefore);

    /// @notice The authorization nonce of `authorizer` was already used or canceled.
    error MockUSDC_AuthorizationUsedOrCanceled(address authorizer, bytes32 nonce);

    /// @notice A receive authorization must be submitted by its payee `payee`, not `caller`.
    error MockUSDC_CallerMustBePayee(address caller, address payee);

    /*//////////////////////////////////////////////////////////////
                              CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param initialOwner Owner, who may appoint the blacklister; also the first blacklister.
    constructor(address initialOwner) EIP712("USD Coin", "2") Ownable(initialOwner) {
        _blacklister = initialOwner;
        emit BlacklisterChanged(initialOwner);
    }

    /*//////////////////////////////////////////////////////////////
                                METADATA
    //////////////////////////////////////////////////////////////*/

    /// @notice Token name: "USD Coin".
    function name() external pure returns (string memory) {
        return "USD Coin";
    }

    /// @notice Token symbol: "USDC".
    function symbol() external pure returns (string memory) {
        return "USDC";
    }

    /// @notice Token decimals: 6.
    function decimals() external pure returns (uint8) {
        return 6;
    }

    /*//////////////////////////////////////////////////////////////
                                 ERC-20
    //////////////////////////////////////////////////////////////*/

    /// @notice Total tokens in existence.
    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    /// @notice Balance of `account`, whether or not it is blacklisted.
    function balanceOf(address account) external view returns (uint256) {
        return _balanceAndBlacklistStates[account] & _BALANCE_MASK;
    }

    /// @notice Amount `spender` may still move from `owner` with {transferFrom}.
    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    /// @notice Moves `value` from the caller to `to`. Reverts if either is blacklisted.
    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @notice Lets `spender` move up to `value` of the caller's tokens; `type(uint256).max` is an
    /// infinite allowance that {transferFrom} never decrements. Reverts if either is blacklisted.
    function approve(address spender, uint256 value) external returns (bool) {
        _approve(msg.sender, spender, value);
        return true;
    }

    /// @notice Moves `value` from `from` to `to` against the caller's allowance. Reverts if the caller,
    /// `from` or `to` is blacklisted.
    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        _requireNotBlacklisted(msg.sender);
        uint256 allowed = _allowances[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < value) revert ERC20InsufficientAllowance(msg.sender, allowed, value);
            unchecked {
                _allowances[from][msg.sender] = allowed - value;
            }
        }
        _transfer(from, to, value);
        return true;
    }

    /*//////////////////////////////////////////////////////////////
                               EIP-2612
    //////////////////////////////////////////////////////////////*/

    /// @notice Sets `owner`'s allowance for `spender` to `value` with `owner`'s EIP-712 signature.
    /// Valid while `block.timestamp <= deadline`. Reverts if either is blacklisted.
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        if (block.timestamp > deadline) revert MockUSDC_PermitExpired(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        _requireValidSignature(owner, structHash, v, r, s);
        _approve(owner, spender, value);
    }

    /// @notice Current permit nonce of `owner`.
    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    /// @notice EIP-712 domain separator: name "USD Coin", version "2", this chain and this contract.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view override(IERC20Permit, IERC3009) returns (bytes32) {
        return _domainSeparatorV4();
    }

    /*//////////////////////////////////////////////////////////////
                               EIP-3009
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IERC3009
    /// @dev Valid while `validAfter < block.timestamp < validBefore`. Reverts if `from` or `to` is
    /// blacklisted.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    /// @inheritdoc IERC3009
    /// @dev As the `v, r, s` form; a 65-byte `r || s || v` for an externally owned account, anything the
    /// ERC-1271 wallet at `from` accepts otherwise.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, signature);
    }

    /// @inheritdoc IERC3009
    /// @dev Reverts unless the caller is `to`. Otherwise as {transferWithAuthorization}.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        if (to != msg.sender) revert MockUSDC_CallerMustBePayee(msg.sender, to);
        _requireValidAuthorization(from, nonce, validAfter, validBefore);
        bytes32 structHash = keccak256(
            abi.encode(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)
        );
        _requireValidSignature(from, structHash, v, r, s);
        _markAuthorizationAsUsed(from, nonce);
        _transfer(from, to, value);
    }

    /// @inheritdoc IERC3009
    /// @dev As in USDC, a blacklisted authorizer may still cancel.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        _requireUnusedAuthorization(authorizer, nonce);
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        _requireValidSignature(authorizer, structHash, v, r, s);
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    /// @inheritdoc IERC3009
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /*//////////////////////////////////////////////////////////////
                                 FAUCET
    //////////////////////////////////////////////////////////////*/

    /// @notice Creates `amount` tokens for `to`. Open to anyone: this contract only exists on local
    /// chains and in tests. Reverts if `to` is blacklisted or total supply would exceed 2^255 - 1.
    function mint(address to, uint256 amount) external {
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        uint256 supply = _totalSupply;
        if (amount > _BALANCE_MASK - supply) revert MockUSDC_SupplyCapExceeded(amount);
        uint256 toState = _balanceAndBlacklistStates[to];
        if (toState & _BLACKLIST_FLAG != 0) revert MockUSDC_Blacklisted(to);
        unchecked {
            // supply + amount <= _BALANCE_MASK, and no balance exceeds the supply.
            _totalSupply = supply + amount;
            _balanceAndBlacklistStates[to] = toState + amount;
        }
        emit Transfer(address(0), to, amount);
    }

    /*//////////////////////////////////////////////////////////////
                               BLACKLIST
    //////////////////////////////////////////////////////////////*/

    /// @notice The account that may blacklist and unblacklist.
    function blacklister() external view returns (address) {
        return _blacklister;
    }

    /// @notice Appoints `newBlacklister`. Only the owner.
    function updateBlacklister(address newBlacklister) external onlyOwner {
        if (newBlacklister == address(0)) revert MockUSDC_InvalidBlacklister();
        _blacklister = newBlacklister;
        emit BlacklisterChanged(newBlacklister);
    }

    /// @notice Blacklists `account`; its balance stays but cannot move. Only the blacklister.
    function blacklist(address account) external {
        _checkBlacklister();
        _balanceAndBlacklistStates[account] |= _BLACKLIST_FLAG;
        emit Blacklisted(account);
    }

    /// @notice Removes `account` from the blacklist. Only the blacklister.
    function unBlacklist(address account) external {
        _checkBlacklister();
        _balanceAndBlacklistStates[account] &= _BALANCE_MASK;
        emit UnBlacklisted(account);
    }

    /// @notice Whether `account` is blacklisted.
    function isBlacklisted(address account) external view returns (bool) {
        return _balanceAndBlacklistStates[account] & _BLACKLIST_FLAG != 0;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev Moves `value` from `from` to `to`, checking both blacklist flags from the balance words.
    /// `to`'s word is read after `from`'s is written, so a self-transfer is a no-op.
    function _transfer(address from, address to, uint256 value) private {
        if (from == address(0)) revert ERC20InvalidSender(address(0));
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));

        uint256 fromState = _balanceAndBlacklistStates[from];
        if (fromState & _BLACKLIST_FLAG != 0) revert MockUSDC_Blacklisted(from);
        // The flag is clear, so the word is the balance.
        if (fromState < value) revert ERC20InsufficientBalance(from, fromState, value);
        unchecked {
            _balanceAndBlacklistStates[from] = fromState - value;
        }

        uint256 toState = _balanceAndBlacklistStates[to];
        if (toState & _BLACKLIST_FLAG != 0) revert MockUSDC_Blacklisted(to);
        unchecked {
            // The flag is clear and balance + value <= total supply <= _BALANCE_MASK.
            _balanceAndBlacklistStates[to] = toState + value;
        }

        emit Transfer(from, to, value);
    }

    /// @dev Sets `owner`'s allowance for `spender`; neither may be zero or blacklisted.
    function _approve(address owner, address spender, uint256 value) private {
        if (owner == address(0)) revert ERC20InvalidApprover(address(0));
        if (spender == address(0)) revert ERC20InvalidSpender(address(0));
        _requireNotBlacklisted(owner);
        _requireNotBlacklisted(spender);
        _allowances[owner][spender] = value;
        emit Approval(owner, spender, value);
    }

    function _requireNotBlacklisted(address account) private view {
        if (_balanceAndBlacklistStates[account] & _BLACKLIST_FLAG != 0) revert MockUSDC_Blacklisted(account);
    }

    function _checkBlacklister() private view {
        if (msg.sender != _blacklister) revert MockUSDC_CallerNotBlacklister(msg.sender);
    }

    /// @dev FiatToken's `_transferWithAuthorization`: window and nonce, signature, then the transfer.
    function _transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        _requireValidAuthorization(from, nonce, validAfter, validBefore);
        bytes32 structHash = keccak256(
            abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)
        );
        _requireValidSignature(from, structHash, signature);
        _markAuthorizationAsUsed(from, nonce);
        _transfer(from, to, value);
    }

    /// @dev Reverts unless `signer` signed the EIP-712 message with `structHash` in this domain.
    function _requireValidSignature(address signer, bytes32 structHash, uint8 v, bytes32 r, bytes32 s) private view {
        _requireValidSignature(signer, structHash, abi.encodePacked(r, s, v));
    }

    /// @dev As above, with the signature as bytes (`r || s || v`, or an ERC-1271 wallet's own format).
    function _requireValidSignature(address signer, bytes32 structHash, bytes memory signature) private view {
        if (!SignatureChecker.isValidSignatureNow(signer, _hashTypedDataV4(structHash), signature)) {
            revert MockUSDC_InvalidSignature();
        }
    }

    /// @dev FiatToken's checks, in its order: `validAfter < block.timestamp < validBefore`, then unused.
    function _requireValidAuthorization(address authorizer, bytes32 nonce, uint256 validAfter, uint256 validBefore)
        private
        view
    {
        if (block.timestamp <= validAfter) revert MockUSDC_AuthorizationNotYetValid(validAfter);
        if (block.timestamp >= validBefore) revert MockUSDC_AuthorizationExpired(validBefore);
        _requireUnusedAuthorization(authorizer, nonce);
    }

    function _requireUnusedAuthorization(address authorizer, bytes32 nonce) private view {
        if (_authorizationStates[authorizer][nonce]) revert MockUSDC_AuthorizationUsedOrCanceled(authorizer, nonce);
    }

    function _markAuthorizationAsUsed(address authorizer, bytes32 nonce) private {
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationUsed(authorizer, nonce);
    }
}
