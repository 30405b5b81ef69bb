// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title ERC1271Wallet
/// @notice A minimal smart-contract wallet for tests: it holds tokens and answers ERC-1271's
/// `isValidSignature` for digests its owner key signed (65-byte `r || s || v`), so a token or the
/// escrow that checks signatures through ERC-1271 accepts the owner's signature as the wallet's.
/// The owner signs the EIP-712 digest itself (typed data with the wallet as `from`), as a
/// plain-ECDSA smart account does.
/// @dev NEVER DEPLOY THIS CONTRACT TO A PUBLIC CHAIN: it has no way to move its tokens out.
contract ERC1271Wallet is IERC1271 {
    /// @notice The key whose signatures the wallet accepts.
    address public immutable owner;

    /// @param owner_ The key whose signatures the wallet accepts.
    constructor(address owner_) {
        owner = owner_;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError error,) = ECDSA.tryRecoverCalldata(hash, signature);
        bool valid = error == ECDSA.RecoverError.NoError && recovered == owner;
        return valid ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }
}
