// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "./Vm.sol";

/// @notice Minimal base for Solidity tests: cheatcodes, labelled assertions, input bounding and the
/// target hooks the invariant fuzzer reads. A small stand-in for forge-std's `Test`.
abstract contract Test {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    address[] private _targetContracts;
    bytes4[] private _targetSelectorsFlat;

    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    FuzzSelector[] private _targetSelectors;

    /*------------------------------ invariant targets ------------------------------*/

    function targetContract(address target) internal {
        _targetContracts.push(target);
    }

    function targetSelector(FuzzSelector memory selector) internal {
        _targetSelectors.push(selector);
    }

    function targetContracts() public view returns (address[] memory) {
        return _targetContracts;
    }

    function targetSelectors() public view returns (FuzzSelector[] memory) {
        return _targetSelectors;
    }

    /*------------------------------ helpers ------------------------------*/

    /// @dev Maps `x` into [min, max] without rejecting inputs, so fuzz runs are not wasted.
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        if (x >= min && x <= max) return x;
        uint256 size = max - min;
        if (size == type(uint256).max) return x;
        return min + (x % (size + 1));
    }

    function makeAddr(string memory name) internal returns (address account) {
        account = vm.addr(uint256(keccak256(bytes(name))));
        vm.label(account, name);
    }

    function makeAccount(string memory name) internal returns (address account, uint256 privateKey) {
        privateKey = uint256(keccak256(bytes(name)));
        account = vm.addr(privateKey);
        vm.label(account, name);
    }

    /*------------------------------ assertions ------------------------------*/

    function assertTrue(bool condition, string memory label) internal pure {
        if (!condition) revert(string.concat("assertTrue failed: ", label));
    }

    function assertFalse(bool condition, string memory label) internal pure {
        if (condition) revert(string.concat("assertFalse failed: ", label));
    }

    function assertEq(uint256 a, uint256 b, string memory label) internal pure {
        if (a != b) {
            revert(string.concat("assertEq failed: ", label, ": ", _toString(a), " != ", _toString(b)));
        }
    }

    function assertEq(address a, address b, string memory label) internal pure {
        if (a != b) revert(string.concat("assertEq(address) failed: ", label));
    }

    function assertEq(bytes32 a, bytes32 b, string memory label) internal pure {
        if (a != b) revert(string.concat("assertEq(bytes32) failed: ", label));
    }

    function assertEq(bool a, bool b, string memory label) internal pure {
        if (a != b) revert(string.concat("assertEq(bool) failed: ", label));
    }

    function assertLe(uint256 a, uint256 b, string memory label) internal pure {
        if (a > b) revert(string.concat("assertLe failed: ", label, ": ", _toString(a), " > ", _toString(b)));
    }

    function assertGe(uint256 a, uint256 b, string memory label) internal pure {
        if (a < b) revert(string.concat("assertGe failed: ", label, ": ", _toString(a), " < ", _toString(b)));
    }

    function _toString(uint256 value) private pure returns (string memory) {
        if (value == 0) return "0";
        uint256 digits;
        for (uint256 v = value; v != 0; v /= 10) digits++;
        bytes memory buffer = new bytes(digits);
        for (; value != 0; value /= 10) buffer[--digits] = bytes1(uint8(48 + (value % 10)));
        return string(buffer);
    }
}
