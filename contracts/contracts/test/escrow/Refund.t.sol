// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract RefundTest is EscrowTestBase {
    function _refundAndCheck(bytes32 id, IAgentEscrow.Escrow memory t, address actor, IAgentEscrow.Status from)
        internal
    {
        _assertState(id, from, t, "before refund");
        Balances memory before = _balances(t);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Refunded(id, actor, t.amount);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(address(escrow), t.buyer, t.amount);
        vm.prank(actor);
        escrow.refund(id, t);
        _assertPaid(before, t, t.amount, 0, 0, "refunded in full");
        _assertState(id, IAgentEscrow.Status.Refunded, t, "refunded");
    }

    /*------------------------------ from Funded ------------------------------*/

    function test_GivenFunded_WhenBuyerRefunds_ReturnsEverything() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _refundAndCheck(id, t, buyer, IAgentEscrow.Status.Funded);
        assertEq(usdc.balanceOf(buyer), START_BALANCE, "buyer whole again");
        assertEq(usdc.balanceOf(feeRecipient), 0, "no fee on refunds");
    }

    function test_GivenFunded_WhenSellerRefunds_ReturnsEverything() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _refundAndCheck(id, t, seller, IAgentEscrow.Status.Funded);
    }

    function test_GivenFundedAtDeadline_WhenBuyerRefunds_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(t.deadline);
        _refundAndCheck(id, t, buyer, IAgentEscrow.Status.Funded);
    }

    function test_RevertGiven_FundedAtDeadline_WhenStrangerRefunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(t.deadline);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, stranger));
        vm.prank(stranger);
        escrow.refund(id, t);
        _assertState(id, IAgentEscrow.Status.Funded, t, "still funded");
    }

    function test_GivenFundedOneSecondPastDeadline_WhenStrangerRefunds_ReturnsEverythingToBuyer() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(uint256(t.deadline) + 1);
        _refundAndCheck(id, t, stranger, IAgentEscrow.Status.Funded);
        assertEq(usdc.balanceOf(stranger), START_BALANCE, "the trigger earns nothing");
    }

    function test_RevertGiven_FundedBeforeDeadline_WhenStrangerRefunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, stranger));
        vm.prank(stranger);
        escrow.refund(id, t);
    }

    function test_RevertGiven_FundedBeforeDeadline_WhenArbiterRefunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, arbiter));
        vm.prank(arbiter);
        escrow.refund(id, t);
    }

    function test_GivenUnclaimedBounty_WhenBuyerRefunds_ReturnsEverything() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        _refundAndCheck(id, t, buyer, IAgentEscrow.Status.Funded);
    }

    function test_GivenUnclaimedBountyPastDeadline_WhenStrangerRefunds_ReturnsEverything() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        vm.warp(uint256(t.deadline) + 1);
        _refundAndCheck(id, t, stranger, IAgentEscrow.Status.Funded);
    }

    function test_RevertGiven_UnclaimedBountyBeforeDeadline_WhenStrangerRefunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, stranger));
        vm.prank(stranger);
        escrow.refund(id, t);
    }

    function test_GivenLapsedClaim_WhenStrangerRefunds_ReturnsEverything() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        t = _assign(id, t, seller, uint40(_now() + 1 days));
        _skip(1 days + 1);
        _refundAndCheck(id, t, stranger, IAgentEscrow.Status.Funded);
    }

    /*------------------------------ from Delivered ------------------------------*/

    function test_GivenDelivered_WhenSellerRefunds_ReturnsEverything() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _refundAndCheck(id, t, seller, IAgentEscrow.Status.Delivered);
    }

    function test_RevertGiven_Delivered_WhenBuyerRefunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, buyer));
        vm.prank(buyer);
        escrow.refund(id, t);
    }

    function test_RevertGiven_DeliveredPastDeadline_WhenStrangerRefunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.warp(uint256(t.deadline) + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, stranger));
        vm.prank(stranger);
        escrow.refund(id, t);
    }

    /*------------------------------ from Disputed ------------------------------*/

    function test_GivenDisputed_WhenSellerRefunds_ReturnsEverything() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        _refundAndCheck(id, t, seller, IAgentEscrow.Status.Disputed);
    }

    function test_RevertGiven_Disputed_WhenBuyerRefunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, buyer));
        vm.prank(buyer);
        escrow.refund(id, t);
    }

    function test_RevertGiven_DisputedPastDeadline_WhenStrangerRefunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.warp(uint256(t.deadline) + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, stranger));
        vm.prank(stranger);
        escrow.refund(id, t);
    }

    function test_RevertGiven_Disputed_WhenArbiterRefunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, arbiter));
        vm.prank(arbiter);
        escrow.refund(id, t);
    }

    /*------------------------------ escrow lookup ------------------------------*/

    function test_RevertGiven_UnknownEscrow() public {
        (, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NotFound.selector, UNKNOWN_ID));
        vm.prank(buyer);
        escrow.refund(UNKNOWN_ID, t);
    }

    function test_RevertWhen_AnyTermDiffers() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        for (uint256 field; field < TERM_FIELDS; ++field) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
            vm.prank(buyer);
            escrow.refund(id, _mutate(t, field));
        }
        _assertState(id, IAgentEscrow.Status.Funded, t, "unchanged");
    }

    /// @dev Without the terms check, a caller could name itself buyer, or inflate the amount.
    function test_RevertWhen_StrangerPassesTermsNamingItselfBuyer() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        IAgentEscrow.Escrow memory forged = _copy(t);
        forged.buyer = stranger;
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
        vm.prank(stranger);
        escrow.refund(id, forged);
        assertEq(usdc.balanceOf(stranger), START_BALANCE, "stranger got nothing");
    }

    /*------------------------------ status ------------------------------*/

    function test_RevertGiven_StatusReleased() public {
        _assertTerminalRefuses(IAgentEscrow.Status.Released);
    }

    function test_RevertGiven_StatusRefunded() public {
        _assertTerminalRefuses(IAgentEscrow.Status.Refunded);
    }

    function test_RevertGiven_StatusResolved() public {
        _assertTerminalRefuses(IAgentEscrow.Status.Resolved);
    }

    function _assertTerminalRefuses(IAgentEscrow.Status status) internal {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _terminal(status);
        _skip(MAX_DURATION);
        uint256 held = usdc.balanceOf(address(escrow));
        address[3] memory callers = [buyer, seller, stranger];
        for (uint256 i; i < callers.length; ++i) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, status));
            vm.prank(callers[i]);
            escrow.refund(id, t);
        }
        assertEq(usdc.balanceOf(address(escrow)), held, "nothing paid twice");
    }
}
