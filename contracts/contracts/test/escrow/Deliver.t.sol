// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract DeliverTest is EscrowTestBase {
    /*------------------------------ success ------------------------------*/

    function test_GivenFunded_WhenSellerDelivers_RecordsDeliveryTime() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _skip(1 hours);

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Delivered(id, DELIVERABLE);
        vm.prank(seller);
        escrow.deliver(id, t, DELIVERABLE);

        IAgentEscrow.Escrow memory next = _copy(t);
        next.deliveredAt = uint40(NOW + 1 hours);
        _assertState(id, IAgentEscrow.Status.Delivered, next, "delivered");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT, "funds stay in escrow");
        assertEq(usdc.balanceOf(seller), START_BALANCE, "seller not paid yet");
    }

    function test_WhenDeliveredExactlyAtDeadline_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(t.deadline);
        IAgentEscrow.Escrow memory next = _deliver(id, t);
        assertEq(next.deliveredAt, t.deadline, "deliveredAt is the deadline");
        _assertState(id, IAgentEscrow.Status.Delivered, next, "delivered at the deadline");
    }

    function test_RevertWhen_DeliveredOneSecondAfterDeadline() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.warp(uint256(t.deadline) + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_DeadlinePassed.selector, id, t.deadline));
        vm.prank(seller);
        escrow.deliver(id, t, DELIVERABLE);
        _assertState(id, IAgentEscrow.Status.Funded, t, "still funded");
    }

    function test_GivenZeroDeliverableHash_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Delivered(id, bytes32(0));
        vm.prank(seller);
        escrow.deliver(id, t, bytes32(0));
    }

    /*------------------------------ caller ------------------------------*/

    function test_RevertWhen_CallerIsBuyer() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotSeller.selector, id, buyer));
        vm.prank(buyer);
        escrow.deliver(id, t, DELIVERABLE);
    }

    function test_RevertWhen_CallerIsStranger() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotSeller.selector, id, stranger));
        vm.prank(stranger);
        escrow.deliver(id, t, DELIVERABLE);
    }

    function test_RevertGiven_UnclaimedBounty() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotSeller.selector, id, seller));
        vm.prank(seller);
        escrow.deliver(id, t, DELIVERABLE);
    }

    /*------------------------------ escrow lookup ------------------------------*/

    function test_RevertGiven_UnknownEscrow() public {
        (, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NotFound.selector, UNKNOWN_ID));
        vm.prank(seller);
        escrow.deliver(UNKNOWN_ID, t, DELIVERABLE);
    }

    function test_RevertWhen_AnyTermDiffers() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        for (uint256 field; field < TERM_FIELDS; ++field) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
            vm.prank(seller);
            escrow.deliver(id, _mutate(t, field), DELIVERABLE);
        }
        _assertState(id, IAgentEscrow.Status.Funded, t, "unchanged");
    }

    /*------------------------------ status ------------------------------*/

    function test_RevertGiven_StatusDelivered() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, IAgentEscrow.Status.Delivered)
        );
        vm.prank(seller);
        escrow.deliver(id, t, DELIVERABLE);
    }

    function test_RevertGiven_StatusDisputed() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _dispute(id, t, buyer);
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, IAgentEscrow.Status.Disputed)
        );
        vm.prank(seller);
        escrow.deliver(id, t, DELIVERABLE);
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
        vm.prank(seller);
        escrow.deliver(id, t, DELIVERABLE);
    }
}
