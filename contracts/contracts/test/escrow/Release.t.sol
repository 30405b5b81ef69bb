// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract ReleaseTest is EscrowTestBase {
    function _expectRelease(bytes32 id, IAgentEscrow.Escrow memory t, address actor, uint256 sellerAmount, uint256 fee)
        internal
    {
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Released(id, actor, sellerAmount, fee);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(address(escrow), t.seller, sellerAmount);
        if (fee != 0) {
            vm.expectEmit(address(usdc));
            emit IERC20.Transfer(address(escrow), feeRecipient, fee);
        }
    }

    /*------------------------------ by the buyer ------------------------------*/

    function test_GivenDelivered_WhenBuyerReleases_PaysSellerLessFee() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        Balances memory before = _balances(t);

        _expectRelease(id, t, buyer, AMOUNT - FEE, FEE);
        vm.prank(buyer);
        escrow.release(id, t);

        _assertPaid(before, t, 0, AMOUNT - FEE, FEE, "released");
        _assertState(id, IAgentEscrow.Status.Released, t, "released");
        assertEq(escrow.totalCredits(), 0, "nothing credited");
    }

    function test_GivenFunded_WhenBuyerReleases_PaysSellerBeforeDelivery() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        Balances memory before = _balances(t);
        _expectRelease(id, t, buyer, AMOUNT - FEE, FEE);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, AMOUNT - FEE, FEE, "released undelivered");
        _assertState(id, IAgentEscrow.Status.Released, t, "released");
    }

    function test_GivenFundedPastDeadline_WhenBuyerReleases_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _skip(DURATION + 1);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertState(id, IAgentEscrow.Status.Released, t, "released after the deadline");
    }

    function test_GivenDisputed_WhenBuyerReleases_PaysSeller() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        Balances memory before = _balances(t);
        _expectRelease(id, t, buyer, AMOUNT - FEE, FEE);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, AMOUNT - FEE, FEE, "released from dispute");
        _assertState(id, IAgentEscrow.Status.Released, t, "released");
    }

    function test_GivenAssignedBounty_WhenBuyerReleases_PaysAssignedSeller() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        t = _assign(id, t, seller2, _deadline());
        Balances memory before = _balances(t);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, AMOUNT - FEE, FEE, "bounty released");
        assertEq(usdc.balanceOf(seller2), START_BALANCE + AMOUNT - FEE, "seller2 paid");
    }

    /*------------------------------ after the dispute window ------------------------------*/

    function test_GivenDelivered_WhenWindowElapsed_StrangerReleasesToSeller() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.warp(uint256(t.deliveredAt) + WINDOW);
        Balances memory before = _balances(t);

        _expectRelease(id, t, stranger, AMOUNT - FEE, FEE);
        vm.prank(stranger);
        escrow.release(id, t);

        _assertPaid(before, t, 0, AMOUNT - FEE, FEE, "auto-released");
        _assertState(id, IAgentEscrow.Status.Released, t, "released");
        assertEq(usdc.balanceOf(stranger), START_BALANCE, "the trigger earns nothing");
    }

    function test_RevertGiven_DeliveredAndWindowOpen_WhenStrangerReleasesOneSecondEarly() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.warp(uint256(t.deliveredAt) + WINDOW - 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_ReleaseNotAllowed.selector, id, stranger));
        vm.prank(stranger);
        escrow.release(id, t);
        _assertState(id, IAgentEscrow.Status.Delivered, t, "still delivered");
    }

    function test_RevertGiven_DeliveredAndWindowOpen_WhenSellerReleases() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_ReleaseNotAllowed.selector, id, seller));
        vm.prank(seller);
        escrow.release(id, t);
    }

    function test_GivenDelivered_WhenWindowElapsed_SellerReleases() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _skip(WINDOW + 10 days);
        _expectRelease(id, t, seller, AMOUNT - FEE, FEE);
        vm.prank(seller);
        escrow.release(id, t);
        _assertState(id, IAgentEscrow.Status.Released, t, "released by the seller");
    }

    function test_GivenZeroDisputeWindow_WhenStrangerReleasesInTheDeliveryBlock_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, AMOUNT, _deadline(), 0);
        t = _deliver(id, t);
        vm.prank(stranger);
        escrow.release(id, t);
        _assertState(id, IAgentEscrow.Status.Released, t, "released at once");
    }

    /*------------------------------ fee arithmetic ------------------------------*/

    function test_GivenAmountBelowFeeUnit_FeeRoundsToZeroAndNoFeeTransfer() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, 99, _deadline(), WINDOW);
        Balances memory before = _balances(t);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Released(id, buyer, 99, 0);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, 99, 0, "99 units at 1%");
    }

    function test_GivenOddAmount_FeeIsFloored() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, 12_345_678, _deadline(), WINDOW);
        Balances memory before = _balances(t);
        _expectRelease(id, t, buyer, 12_222_222, 123_456);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, 12_222_222, 123_456, "floor(12_345_678 * 1%)");
    }

    function test_GivenZeroFee_SellerGetsEverything() public {
        vm.prank(owner);
        escrow.setFeeBps(0);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        assertEq(t.feeBps, 0, "terms carry zero fee");
        Balances memory before = _balances(t);
        _expectRelease(id, t, buyer, AMOUNT, 0);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, AMOUNT, 0, "no fee");
    }

    function test_GivenFeeAtCap_FeeIsTenPercent() public {
        vm.prank(owner);
        escrow.setFeeBps(MAX_FEE_BPS);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        Balances memory before = _balances(t);
        _expectRelease(id, t, buyer, 90e6, 10e6);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, 90e6, 10e6, "10% fee");
    }

    function test_GivenFeeChangedAfterFunding_UsesTheFeeLockedAtFunding() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.prank(owner);
        escrow.setFeeBps(MAX_FEE_BPS);
        Balances memory before = _balances(t);
        _expectRelease(id, t, buyer, AMOUNT - FEE, FEE);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, AMOUNT - FEE, FEE, "1% as at funding");
    }

    function test_GivenFeeRecipientChanged_PaysTheCurrentRecipient() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        address newRecipient = makeAddr("newFeeRecipient");
        vm.prank(owner);
        escrow.setFeeRecipient(newRecipient);
        vm.prank(buyer);
        escrow.release(id, t);
        assertEq(usdc.balanceOf(newRecipient), FEE, "new recipient gets the fee");
        assertEq(usdc.balanceOf(feeRecipient), 0, "former recipient gets nothing");
    }

    /*------------------------------ caller ------------------------------*/

    function test_RevertGiven_Funded_WhenSellerReleases() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyer.selector, id, seller));
        vm.prank(seller);
        escrow.release(id, t);
    }

    function test_RevertGiven_FundedPastDeadline_WhenStrangerReleases() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _skip(DURATION + MAX_DISPUTE_WINDOW + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyer.selector, id, stranger));
        vm.prank(stranger);
        escrow.release(id, t);
    }

    function test_RevertGiven_Disputed_WhenSellerReleases() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        _skip(WINDOW + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyer.selector, id, seller));
        vm.prank(seller);
        escrow.release(id, t);
    }

    function test_RevertGiven_Disputed_WhenStrangerReleasesAfterWindow() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        _skip(WINDOW + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyer.selector, id, stranger));
        vm.prank(stranger);
        escrow.release(id, t);
    }

    function test_RevertGiven_Disputed_WhenArbiterReleases() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyer.selector, id, arbiter));
        vm.prank(arbiter);
        escrow.release(id, t);
    }

    function test_RevertGiven_UnclaimedBounty_WhenBuyerReleases() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_SellerNotAssigned.selector, id));
        vm.prank(buyer);
        escrow.release(id, t);
    }

    /*------------------------------ escrow lookup ------------------------------*/

    function test_RevertGiven_UnknownEscrow() public {
        (, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NotFound.selector, UNKNOWN_ID));
        vm.prank(buyer);
        escrow.release(UNKNOWN_ID, t);
    }

    function test_RevertWhen_AnyTermDiffers() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        for (uint256 field; field < TERM_FIELDS; ++field) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
            vm.prank(buyer);
            escrow.release(id, _mutate(t, field));
        }
        _assertState(id, IAgentEscrow.Status.Delivered, t, "unchanged");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT, "nothing paid");
    }

    function test_RevertWhen_TermsOmitDelivery() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        IAgentEscrow.Escrow memory stale = _copy(t);
        stale.deliveredAt = 0;
        _skip(WINDOW);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
        vm.prank(stranger);
        escrow.release(id, stale);
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
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, status));
        vm.prank(buyer);
        escrow.release(id, t);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, status));
        vm.prank(stranger);
        escrow.release(id, t);
        assertEq(usdc.balanceOf(address(escrow)), held, "nothing paid twice");
    }
}
