// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {AgentEscrow} from "../../AgentEscrow.sol";
import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {Test} from "../utils/Test.sol";

/// @dev A token that calls back into the escrow from `transfer` (an ERC-777-style hook), recording
/// how the re-entrant call ended. USDC has no such hook; this proves the guard holds if one ever did.
contract HookedToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    address public hookTarget;
    bytes public hookCall;
    bool public hookSucceeded;
    bytes public hookRevertData;
    bool public hookRan;
    mapping(address => bool) public refused;

    /// @dev Transfers to `account` revert while `refused` (like a USDC blacklist).
    function setRefused(address account, bool isRefused) external {
        refused[account] = isRefused;
    }

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        return true;
    }

    /// @dev On the next `transfer`, call `target` with `data` before moving the tokens.
    function setHook(address target, bytes calldata data) external {
        hookTarget = target;
        hookCall = data;
        hookRan = false;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        allowance[from][msg.sender] -= amount;
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        require(!refused[to], "refused");
        if (hookTarget != address(0) && !hookRan) {
            hookRan = true;
            (hookSucceeded, hookRevertData) = hookTarget.call(hookCall);
        }
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        return true;
    }
}

contract ReentrancyTest is Test {
    uint256 internal constant AMOUNT = 100e6;
    uint32 internal constant WINDOW = 1 days;

    HookedToken internal token;
    AgentEscrow internal escrow;
    address internal buyer = makeAddr("buyer");
    address internal seller = makeAddr("seller");
    address internal owner = makeAddr("owner");

    function setUp() public {
        vm.warp(1_700_000_000);
        token = new HookedToken();
        escrow = new AgentEscrow(address(token), 1_000, 100, owner, owner, owner, owner);
        token.mint(buyer, 10 * AMOUNT);
        vm.prank(buyer);
        token.approve(address(escrow), type(uint256).max);
    }

    /// @dev The buyer funds under `ref`; returns the escrow's id and terms.
    function _fund(bytes32 ref) internal returns (bytes32 id, IAgentEscrow.Escrow memory t) {
        uint40 deadline = uint40(block.timestamp + 7 days);
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);
        id = escrow.escrowIdOf(buyer, ref);
        t = IAgentEscrow.Escrow(buyer, seller, AMOUNT, deadline, WINDOW, 0, 100);
    }

    /// While paying out one escrow, the token re-enters to release another: the guard refuses the
    /// inner call, the outer release completes, and nothing is paid twice.
    function test_RevertWhen_PayoutReentersToReleaseAnotherEscrow() public {
        (bytes32 firstId, IAgentEscrow.Escrow memory first) = _fund(bytes32(uint256(1)));
        (bytes32 secondId, IAgentEscrow.Escrow memory second) = _fund(bytes32(uint256(2)));
        token.setHook(address(escrow), abi.encodeCall(IAgentEscrow.release, (secondId, second)));

        vm.prank(buyer);
        escrow.release(firstId, first);

        assertTrue(token.hookRan(), "the hook ran");
        assertFalse(token.hookSucceeded(), "the re-entrant release was refused");
        assertEq(
            bytes32(token.hookRevertData()),
            bytes32(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector),
            "refused by the reentrancy guard"
        );
        (IAgentEscrow.Status status,) = escrow.escrowState(secondId);
        assertEq(uint256(status), uint256(IAgentEscrow.Status.Funded), "the other escrow is untouched");
        assertEq(token.balanceOf(seller), AMOUNT - AMOUNT / 100, "seller paid once");
        assertEq(token.balanceOf(owner), AMOUNT / 100, "fee paid once");
        assertEq(token.balanceOf(address(escrow)), AMOUNT, "the other escrow's amount is still held");
    }

    /// A credit withdrawal whose transfer re-enters to withdraw again: the inner call is refused by
    /// the guard, and the credit is paid exactly once.
    function test_GivenCredit_WhenWithdrawalReenters_PaysOnce() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund(bytes32(uint256(1)));
        // The token refuses the seller at release time, so the payout is credited.
        token.setRefused(seller, true);
        vm.prank(buyer);
        escrow.release(id, t);
        uint256 credit = escrow.creditOf(seller);
        assertEq(credit, AMOUNT - AMOUNT / 100, "credited");
        token.setRefused(seller, false);

        token.setHook(address(escrow), abi.encodeCall(IAgentEscrow.withdrawCredit, (seller)));
        escrow.withdrawCredit(seller);

        assertTrue(token.hookRan(), "the hook ran");
        assertFalse(token.hookSucceeded(), "the re-entrant withdrawal was refused");
        assertEq(
            bytes32(token.hookRevertData()),
            bytes32(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector),
            "refused by the reentrancy guard"
        );
        assertEq(token.balanceOf(seller), credit, "paid exactly once");
        assertEq(escrow.creditOf(seller), 0, "credit spent");
        assertEq(escrow.totalCredits(), 0, "no credits left");
    }
}
