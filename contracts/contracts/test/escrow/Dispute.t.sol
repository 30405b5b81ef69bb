// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract DisputeTest is EscrowTestBase {
    function _disputeAndCheck(bytes32 id, IAgentEscrow.Escrow memory t, address by) internal {
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Disputed(id, by, REASON);
        vm.prank(by);
        escrow.dispute(id, t, REASON);
        _assertState(id, IAgentEscrow.Status.Disputed, t, "disputed");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT, "funds stay in escrow");
    }

    /*------------------------------ from Funded ------------------------------*/

    function test_GivenFunded_WhenBuyerDisputes_MarksDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _disputeAndCheck(id, t, buyer);
    }

    function test_GivenFunded_WhenSellerDisputes_MarksDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _disputeAndCheck(id, t, seller);
    }

    function test_GivenFundedAtDeadline_WhenBuyerDisputes_MarksDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(t.deadline);
        _disputeAndCheck(id, t, buyer);
    }

    function test_RevertGiven_FundedOneSecondPastDeadline_WhenSellerDisputes() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(uint256(t.deadline) + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_DeadlinePassed.selector, id, t.deadline));
        vm.prank(seller);
        escrow.dispute(id, t, REASON);
    }

    function test_RevertGiven_UnclaimedBounty_WhenBuyerDisputes() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_SellerNotAssigned.selector, id));
        vm.prank(buyer);
        escrow.dispute(id, t, REASON);
    }

    function test_GivenAssignedBounty_WhenSellerDisputes_MarksDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        t = _assign(id, t, seller, _deadline());
        _disputeAndCheck(id, t, seller);
    }

    /*------------------------------ from Delivered ------------------------------*/

    function test_GivenDelivered_WhenBuyerDisputesInWindow_MarksDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _skip(1 days);
        _disputeAndCheck(id, t, buyer);
    }

    function test_GivenDelivered_WhenSellerDisputesInWindow_MarksDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _disputeAndCheck(id, t, seller);
    }

    function test_GivenDelivered_WhenDisputedOneSecondBeforeWindowEnd_MarksDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.warp(uint256(t.deliveredAt) + WINDOW - 1);
        _disputeAndCheck(id, t, buyer);
    }

    function test_RevertGiven_Delivered_WhenDisputedAtWindowEnd() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        uint256 closesAt = uint256(t.deliveredAt) + WINDOW;
        vm.warp(closesAt);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_DisputeWindowClosed.selector, id, closesAt));
        vm.prank(buyer);
        escrow.dispute(id, t, REASON);
        _assertState(id, IAgentEscrow.Status.Delivered, t, "still delivered");
    }

    function test_RevertGiven_ZeroDisputeWindow_WhenDisputedInTheDeliveryBlock() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, AMOUNT, _deadline(), 0);
        t = _deliver(id, t);
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_DisputeWindowClosed.selector, id, uint256(t.deliveredAt))
        );
        vm.prank(buyer);
        escrow.dispute(id, t, REASON);
    }

    function test_GivenDeliveredAtDeadline_WhenDisputedAfterDeadlineInWindow_MarksDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(t.deadline);
        t = _deliver(id, t);
        _skip(1 days);
        _disputeAndCheck(id, t, buyer);
    }

    /*------------------------------ caller ------------------------------*/

    function test_RevertWhen_CallerIsStranger() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotParty.selector, id, stranger));
        vm.prank(stranger);
        escrow.dispute(id, t, REASON);
    }

    function test_RevertWhen_CallerIsArbiter() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotParty.selector, id, arbiter));
        vm.prank(arbiter);
        escrow.dispute(id, t, REASON);
    }

    function test_RevertWhen_CallerIsOperator() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotParty.selector, id, operator));
        vm.prank(operator);
        escrow.dispute(id, t, REASON);
    }

    /*------------------------------ escrow lookup ------------------------------*/

    function test_RevertGiven_UnknownEscrow() public {
        (, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NotFound.selector, UNKNOWN_ID));
        vm.prank(buyer);
        escrow.dispute(UNKNOWN_ID, t, REASON);
    }

    function test_RevertWhen_AnyTermDiffers() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        for (uint256 field; field < TERM_FIELDS; ++field) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
            vm.prank(seller);
            escrow.dispute(id, _mutate(t, field), REASON);
        }
        _assertState(id, IAgentEscrow.Status.Delivered, t, "unchanged");
    }

    /// @dev A delivery time moved forward would re-open a closed window; the terms check stops it.
    function test_RevertWhen_DeliveryTimeForgedToReopenWindow() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _skip(WINDOW);
        IAgentEscrow.Escrow memory forged = _copy(t);
        forged.deliveredAt = uint40(_now());
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
        vm.prank(buyer);
        escrow.dispute(id, forged, REASON);
    }

    /*------------------------------ status ------------------------------*/

    function test_RevertGiven_StatusDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, IAgentEscrow.Status.Disputed)
        );
        vm.prank(seller);
        escrow.dispute(id, t, REASON);
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
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, status));
        vm.prank(buyer);
        escrow.dispute(id, t, REASON);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, status));
        vm.prank(seller);
        escrow.dispute(id, t, REASON);
    }
}
