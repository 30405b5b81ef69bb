// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IERC3009
/// @notice The part of EIP-3009 ("Transfer With Authorization") that USDC implements and the escrow
/// uses. The signed messages are `ReceiveWithAuthorization(address from,address to,uint256 value,
/// uint256 validAfter,uint256 validBefore,bytes32 nonce)` and `TransferWithAuthorization(...)` with
/// the same fields, in the token's EIP-712 domain ({DOMAIN_SEPARATOR}).
interface IERC3009 {
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    /// @notice Moves `value` from `from` to `to` with `from`'s signature; anyone may submit it.
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
    ) external;

    /// @notice {transferWithAuthorization} with the signature as bytes (FiatToken v2.2): `r || s || v`
    /// for an externally owned account, or whatever the signer's ERC-1271 `isValidSignature` accepts
    /// when `from` is a contract (a smart-contract wallet). This is the form an x402 client's
    /// payment is settled with.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;

    /// @notice As {transferWithAuthorization}, but only `to` may submit it, which stops front-running
    /// of a payment that a contract expects to receive.
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
    ) external;

    /// @notice Cancels an unused authorization.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external;

    /// @notice Whether the authorization nonce of `authorizer` is used or canceled. The token keeps one
    /// flag per nonce: a transfer, a receipt and a cancellation all set it, and it never clears.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);

    /// @notice The token's EIP-712 domain separator, under which authorizations are signed.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
