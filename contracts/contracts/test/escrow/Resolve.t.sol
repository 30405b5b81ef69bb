// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract ResolveTest is EscrowTestBase {
    /// @dev Resolves `t` with `sellerBps` and checks the event, the three transfers and the balances
    /// against literal expected amounts.
    function _resolveAndCheck(
        bytes32 id,
        IAgentEscrow.Escrow memory t,
        uint16 sellerBps,
        uint256 sellerAmount,
        uint256 buyerAmount,
        uint256 fee
    ) internal {
        assertEq(sellerAmount + buyerAmount + fee, t.amount, "expected split conserves the amount");
        Balances memory before = _balances(t);

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Resolved(id, sellerBps, sellerAmount, buyerAmount, fee);
        if (sellerAmount != 0) {
            vm.expectEmit(address(usdc));
            emit IERC20.Transfer(address(escrow), t.seller, sellerAmount);
        }
        if (fee != 0) {
            vm.expectEmit(address(usdc));
            emit IERC20.Transfer(address(escrow), feeRecipient, fee);
        }
        if (buyerAmount != 0) {
            vm.expectEmit(address(usdc));
            emit IERC20.Transfer(address(escrow), t.buyer, buyerAmount);
        }
        vm.prank(arbiter);
        escrow.resolve(id, t, sellerBps);

        _assertPaid(before, t, buyerAmount, sellerAmount, fee, "resolved");
        _assertState(id, IAgentEscrow.Status.Resolved, t, "resolved");
        assertEq(usdc.balanceOf(arbiter), 0, "arbiter gains nothing");
    }

    /*------------------------------ splits ------------------------------*/

    function test_GivenDisputed_WhenSplitEvenly_PaysBothLessFeeOnSellerHalf() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        // seller share 50e6, fee 1% of it.
        _resolveAndCheck(id, t, 5_000, 49.5e6, 50e6, 0.5e6);
    }

    function test_GivenDisputed_WhenAllToSeller_MatchesARelease() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        _resolveAndCheck(id, t, 10_000, AMOUNT - FEE, 0, FEE);
    }

    function test_GivenDisputed_WhenAllToBuyer_RefundsWithoutFee() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        _resolveAndCheck(id, t, 0, 0, AMOUNT, 0);
        assertEq(usdc.balanceOf(feeRecipient), 0, "no fee");
    }

    function test_GivenDisputed_WhenOneBasisPointToSeller_FeeRoundsDown() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        // share = 100e6 / 10_000 = 10_000; fee = 10_000 * 100 / 10_000 = 100.
        _resolveAndCheck(id, t, 1, 9_900, AMOUNT - 10_000, 100);
    }

    function test_GivenOddAmount_WhenSplitByThirds_FloorsShareAndFee() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, 10_001, _deadline(), WINDOW);
        _dispute(id, t, seller);
        // share = floor(10_001 * 3_333 / 10_000) = 3_333; fee = floor(3_333 / 100) = 33.
        _resolveAndCheck(id, t, 3_333, 3_300, 6_668, 33);
    }

    function test_GivenDisputedFromFunded_WhenResolved_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _dispute(id, t, seller);
        _resolveAndCheck(id, t, 2_500, 24.75e6, 75e6, 0.25e6);
    }

    function test_GivenFeeChangedAfterFunding_UsesTheFeeLockedAtFunding() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.prank(owner);
        escrow.setFeeBps(0);
        _resolveAndCheck(id, t, 5_000, 49.5e6, 50e6, 0.5e6);
    }

    function test_GivenZeroFee_SellerShareIsPaidWhole() public {
        vm.prank(owner);
        escrow.setFeeBps(0);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        _resolveAndCheck(id, t, 7_000, 70e6, 30e6, 0);
    }

    function test_GivenArbiterReplaced_TheNewArbiterResolves() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        address newArbiter = makeAddr("newArbiter");
        vm.prank(owner);
        escrow.setArbiter(newArbiter);

        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotArbiter.selector, arbiter));
        vm.prank(arbiter);
        escrow.resolve(id, t, 5_000);

        vm.prank(newArbiter);
        escrow.resolve(id, t, 5_000);
        _assertState(id, IAgentEscrow.Status.Resolved, t, "resolved by the new arbiter");
    }

    /*------------------------------ arguments and caller ------------------------------*/

    function test_RevertWhen_SellerBpsAbove10000() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSellerBps.selector, 10_001));
        vm.prank(arbiter);
        escrow.resolve(id, t, 10_001);
    }

    function test_RevertWhen_SellerBpsIsUint16Max() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSellerBps.selector, type(uint16).max));
        vm.prank(arbiter);
        escrow.resolve(id, t, type(uint16).max);
    }

    function test_RevertWhen_CallerIsBuyer() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotArbiter.selector, buyer));
        vm.prank(buyer);
        escrow.resolve(id, t, 0);
    }

    function test_RevertWhen_CallerIsSeller() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotArbiter.selector, seller));
        vm.prank(seller);
        escrow.resolve(id, t, 10_000);
    }

    function test_RevertWhen_CallerIsOwner() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotArbiter.selector, owner));
        vm.prank(owner);
        escrow.resolve(id, t, 5_000);
    }

    /*------------------------------ escrow lookup ------------------------------*/

    function test_RevertGiven_UnknownEscrow() public {
        (, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NotFound.selector, UNKNOWN_ID));
        vm.prank(arbiter);
        escrow.resolve(UNKNOWN_ID, t, 5_000);
    }

    function test_RevertWhen_AnyTermDiffers() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        for (uint256 field; field < TERM_FIELDS; ++field) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
            vm.prank(arbiter);
            escrow.resolve(id, _mutate(t, field), 5_000);
        }
        _assertState(id, IAgentEscrow.Status.Disputed, t, "unchanged");
    }

    /*------------------------------ status ------------------------------*/

    function test_RevertGiven_StatusFunded() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, IAgentEscrow.Status.Funded)
        );
        vm.prank(arbiter);
        escrow.resolve(id, t, 5_000);
    }

    function test_RevertGiven_StatusDelivered() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, IAgentEscrow.Status.Delivered)
        );
        vm.prank(arbiter);
        escrow.resolve(id, t, 5_000);
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
        uint256 held = usdc.balanceOf(address(escrow));
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, status));
        vm.prank(arbiter);
        escrow.resolve(id, t, 5_000);
        assertEq(usdc.balanceOf(address(escrow)), held, "nothing paid twice");
    }
}
