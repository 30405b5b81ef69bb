// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract AssignSellerTest is EscrowTestBase {
    /*------------------------------ success ------------------------------*/

    function test_GivenUnclaimedBounty_WhenOperatorAssigns_SetsSellerAndDeadline() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = uint40(_now() + 2 days);

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.SellerAssigned(id, seller, deadline);
        vm.prank(operator);
        escrow.assignSeller(id, t, seller, deadline);

        IAgentEscrow.Escrow memory next = _copy(t);
        next.seller = seller;
        next.deadline = deadline;
        _assertState(id, IAgentEscrow.Status.Funded, next, "assigned");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT, "funds stay in escrow");
    }

    function test_GivenUnclaimedBounty_WhenBuyerAssigns_SetsSellerAndDeadline() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = uint40(_now() + 2 days);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.SellerAssigned(id, seller, deadline);
        vm.prank(buyer);
        escrow.assignSeller(id, t, seller, deadline);

        IAgentEscrow.Escrow memory next = _copy(t);
        next.seller = seller;
        next.deadline = deadline;
        _assertState(id, IAgentEscrow.Status.Funded, next, "assigned by buyer");
    }

    function test_GivenAssignedBounty_TheSellerDeliversAndIsPaid() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        t = _assign(id, t, seller, _deadline());
        t = _deliver(id, t);
        _assertState(id, IAgentEscrow.Status.Delivered, t, "delivered");
        vm.prank(buyer);
        escrow.release(id, t);
        assertEq(usdc.balanceOf(seller), START_BALANCE + AMOUNT - FEE, "assigned seller paid");
    }

    function test_GivenUnclaimedBountyPastDeadline_WhenAssigned_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        _skip(DURATION + 1);
        uint40 deadline = _deadline();
        IAgentEscrow.Escrow memory next = _assign(id, t, seller, deadline);
        _assertState(id, IAgentEscrow.Status.Funded, next, "late assignment");
    }

    function test_WhenDeadlineOneSecondAhead_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        IAgentEscrow.Escrow memory next = _assign(id, t, seller, uint40(_now() + 1));
        _assertState(id, IAgentEscrow.Status.Funded, next, "deadline now + 1");
    }

    function test_WhenDeadlineAtMaxDuration_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        IAgentEscrow.Escrow memory next = _assign(id, t, seller, uint40(_now() + MAX_DURATION));
        _assertState(id, IAgentEscrow.Status.Funded, next, "deadline now + MAX_DURATION");
    }

    /*------------------------------ lapsed claims ------------------------------*/

    function test_GivenClaimLapsed_WhenReassigned_TheNewSellerTakesOver() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        t = _assign(id, t, seller, uint40(_now() + 1 days));
        IAgentEscrow.Escrow memory claimed = t;

        _skip(1 days + 1);
        uint40 deadline = _deadline();
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.SellerAssigned(id, seller2, deadline);
        vm.prank(operator);
        escrow.assignSeller(id, claimed, seller2, deadline);
        IAgentEscrow.Escrow memory next = _copy(claimed);
        next.seller = seller2;
        next.deadline = deadline;
        _assertState(id, IAgentEscrow.Status.Funded, next, "re-assigned");

        // The lapsed seller's terms are stale, and under the new terms it is not the seller.
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
        vm.prank(seller);
        escrow.deliver(id, claimed, DELIVERABLE);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotSeller.selector, id, seller));
        vm.prank(seller);
        escrow.deliver(id, next, DELIVERABLE);

        next = _deliver(id, next);
        _assertState(id, IAgentEscrow.Status.Delivered, next, "new seller delivered");
    }

    function test_GivenClaimLapsed_WhenReassignedToTheSameSeller_ExtendsDeadline() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        t = _assign(id, t, seller, uint40(_now() + 1 days));
        _skip(1 days + 1);
        IAgentEscrow.Escrow memory next = _assign(id, t, seller, _deadline());
        _assertState(id, IAgentEscrow.Status.Funded, next, "same seller, new deadline");
    }

    function test_RevertGiven_ClaimAtItsDeadline() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        t = _assign(id, t, seller, uint40(_now() + 1 days));
        vm.warp(t.deadline);
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_SellerAlreadyAssigned.selector, id, seller));
        vm.prank(operator);
        escrow.assignSeller(id, t, seller2, deadline);
    }

    function test_RevertGiven_ClaimStillRunning() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        t = _assign(id, t, seller, _deadline());
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_SellerAlreadyAssigned.selector, id, seller));
        vm.prank(buyer);
        escrow.assignSeller(id, t, seller2, deadline);
    }

    function test_RevertGiven_FixedEscrowBeforeDeadline_WhenBuyerAssigns() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_SellerAlreadyAssigned.selector, id, seller));
        vm.prank(buyer);
        escrow.assignSeller(id, t, seller2, deadline);
    }

    /*------------------------------ FIXED escrows ------------------------------*/

    function test_RevertGiven_FixedEscrowBeforeDeadline_WhenOperatorAssigns() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NotBounty.selector, id));
        vm.prank(operator);
        escrow.assignSeller(id, t, seller2, deadline);
    }

    /// The buyer chose this seller: once the deadline lapses the operator may not hand the escrow
    /// to someone else (who, with a zero dispute window, could deliver and be paid in one block).
    function test_RevertGiven_FixedEscrowLapsed_WhenOperatorAssigns() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, AMOUNT, _deadline(), 0);
        vm.warp(uint256(t.deadline) + 1);
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NotBounty.selector, id));
        vm.prank(operator);
        escrow.assignSeller(id, t, stranger, deadline);
        _assertState(id, IAgentEscrow.Status.Funded, t, "terms unchanged");
    }

    function test_GivenFixedEscrowLapsed_WhenBuyerReassigns_TheNewSellerTakesOver() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(uint256(t.deadline) + 1);
        uint40 deadline = _deadline();
        vm.prank(buyer);
        escrow.assignSeller(id, t, seller2, deadline);
        IAgentEscrow.Escrow memory next = _copy(t);
        next.seller = seller2;
        next.deadline = deadline;
        _assertState(id, IAgentEscrow.Status.Funded, next, "buyer re-assigned its own escrow");
        assertFalse(escrow.isBounty(id), "still a FIXED escrow");
    }

    function test_RevertGiven_FixedEscrowLapsed_WhenOperatorSignsAssign() public {
        (address op, uint256 opKey) = makeAccount("signing-operator");
        vm.prank(owner);
        escrow.setOperator(op);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(uint256(t.deadline) + 1);
        uint40 deadline = _deadline();
        uint256 sigDeadline = _now() + 1 hours;
        bytes memory signature = _signAssignSeller(opKey, id, stranger, deadline, 0, sigDeadline);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NotBounty.selector, id));
        escrow.assignSellerWithSig(id, t, stranger, deadline, op, 0, sigDeadline, signature);
    }

    /*------------------------------ isBounty ------------------------------*/

    function test_IsBounty_GivenFixedEscrow_IsFalse() public {
        (bytes32 id,) = _fund();
        assertFalse(escrow.isBounty(id), "FIXED escrow");
    }

    function test_IsBounty_GivenUnknownEscrow_IsFalse() public view {
        assertFalse(escrow.isBounty(keccak256("unknown")), "unknown escrow");
    }

    function test_IsBounty_GivenBounty_StaysTrueThroughItsLife() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        assertTrue(escrow.isBounty(id), "funded");
        t = _assign(id, t, seller, _deadline());
        assertTrue(escrow.isBounty(id), "assigned");
        t = _deliver(id, t);
        assertTrue(escrow.isBounty(id), "delivered");
        _skip(WINDOW);
        escrow.release(id, t);
        assertTrue(escrow.isBounty(id), "released");
        _assertState(id, IAgentEscrow.Status.Released, t, "status read past the flag");
    }

    /*------------------------------ caller ------------------------------*/

    function test_RevertWhen_CallerIsStranger() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = _deadline();
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyerOrOperator.selector, id, stranger)
        );
        vm.prank(stranger);
        escrow.assignSeller(id, t, stranger, deadline);
    }

    function test_RevertWhen_CallerIsTheWouldBeSeller() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyerOrOperator.selector, id, seller));
        vm.prank(seller);
        escrow.assignSeller(id, t, seller, deadline);
    }

    function test_RevertWhen_CallerIsArbiter() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyerOrOperator.selector, id, arbiter));
        vm.prank(arbiter);
        escrow.assignSeller(id, t, seller, deadline);
    }

    function test_RevertGiven_OperatorReplaced_WhenFormerOperatorAssigns() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        vm.prank(owner);
        escrow.setOperator(address(0));
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyerOrOperator.selector, id, operator));
        vm.prank(operator);
        escrow.assignSeller(id, t, seller, deadline);

        // The buyer still may.
        vm.prank(buyer);
        escrow.assignSeller(id, t, seller, deadline);
    }

    /*------------------------------ arguments ------------------------------*/

    function test_RevertWhen_SellerIsZero() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSeller.selector, address(0)));
        vm.prank(operator);
        escrow.assignSeller(id, t, address(0), deadline);
    }

    function test_RevertWhen_SellerIsBuyer() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSeller.selector, buyer));
        vm.prank(operator);
        escrow.assignSeller(id, t, buyer, deadline);
    }

    function test_RevertWhen_DeadlineIsNow() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = uint40(_now());
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, deadline));
        vm.prank(operator);
        escrow.assignSeller(id, t, seller, deadline);
    }

    function test_RevertWhen_DeadlineBeyondMaxDuration() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = uint40(_now() + MAX_DURATION + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, deadline));
        vm.prank(operator);
        escrow.assignSeller(id, t, seller, deadline);
    }

    /*------------------------------ escrow lookup ------------------------------*/

    function test_RevertGiven_UnknownEscrow() public {
        (, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NotFound.selector, UNKNOWN_ID));
        vm.prank(operator);
        escrow.assignSeller(UNKNOWN_ID, t, seller, deadline);
    }

    function test_RevertWhen_AnyTermDiffers() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        uint40 deadline = _deadline();
        for (uint256 field; field < TERM_FIELDS; ++field) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
            vm.prank(operator);
            escrow.assignSeller(id, _mutate(t, field), seller, deadline);
        }
        _assertState(id, IAgentEscrow.Status.Funded, t, "unchanged");
    }

    /*------------------------------ status ------------------------------*/

    function test_RevertGiven_StatusDelivered() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _skip(DURATION);
        uint40 deadline = _deadline();
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, IAgentEscrow.Status.Delivered)
        );
        vm.prank(operator);
        escrow.assignSeller(id, t, seller2, deadline);
    }

    function test_RevertGiven_StatusDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _dispute(id, t, seller);
        _skip(DURATION + 1);
        uint40 deadline = _deadline();
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, IAgentEscrow.Status.Disputed)
        );
        vm.prank(operator);
        escrow.assignSeller(id, t, seller2, deadline);
    }

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
        _skip(DURATION + 1);
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, status));
        vm.prank(operator);
        escrow.assignSeller(id, t, seller2, deadline);
    }
}
