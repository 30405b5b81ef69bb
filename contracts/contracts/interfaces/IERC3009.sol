// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IERC3009
/// @notice The part of EIP-3009 ("Transfer With Authorization") that USDC implements and the escrow
/// uses. The signed message is `ReceiveWithAuthorization(address from,address to,uint256 value,
/// uint256 validAfter,uint256 validBefore,bytes32 nonce)` in the token's EIP-712 domain.
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

    /// @notice Whether the authorization nonce of `authorizer` is used or canceled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);
}
