// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract FuzzTest is EscrowTestBase {
    /// @dev Funds a FIXED escrow of `amount` (minted to the buyer) at `feeBps`, due `duration` from now.
    function _fundFuzzed(uint256 amount, uint256 feeBps, uint256 duration, uint256 window)
        internal
        returns (bytes32 id, IAgentEscrow.Escrow memory t)
    {
        vm.prank(owner);
        escrow.setFeeBps(uint16(feeBps));
        usdc.mint(buyer, amount);
        (id, t) = _fundAs(buyer, seller, amount, uint40(_now() + duration), uint32(window));
        assertEq(t.feeBps, feeBps, "fee locked in the terms");
    }

    /*------------------------------ conservation ------------------------------*/

    function testFuzz_Release_PaysAmountLessFlooredFee(
        uint256 amount,
        uint256 feeBps,
        uint256 duration,
        uint256 window,
        uint256 deliverAfter,
        uint256 jump
    ) public {
        amount = bound(amount, 1, MAX_AMOUNT);
        feeBps = bound(feeBps, 0, MAX_FEE_BPS);
        duration = bound(duration, 1, MAX_DURATION);
        window = bound(window, 0, MAX_DISPUTE_WINDOW);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundFuzzed(amount, feeBps, duration, window);

        _skip(bound(deliverAfter, 0, duration));
        t = _deliver(id, t);
        vm.warp(uint256(t.deliveredAt) + bound(jump, window, window + 2 * MAX_DURATION));

        Balances memory before = _balances(t);
        vm.prank(stranger);
        escrow.release(id, t);
        Balances memory afterwards = _balances(t);

        uint256 sellerGain = afterwards.seller - before.seller;
        uint256 feeGain = afterwards.feeRecipient - before.feeRecipient;
        assertEq(sellerGain + feeGain, amount, "seller + fee == amount");
        assertEq(feeGain, (amount * feeBps) / BPS, "fee == floor(amount * feeBps / 10_000)");
        assertEq(afterwards.buyer, before.buyer, "buyer gets nothing on release");
        assertEq(afterwards.escrow, 0, "escrow emptied");
        _assertState(id, IAgentEscrow.Status.Released, t, "released");
    }

    function testFuzz_Resolve_SplitsExactly(uint256 amount, uint256 feeBps, uint256 sellerBps, bool fromDelivered)
        public
    {
        amount = bound(amount, 1, MAX_AMOUNT);
        feeBps = bound(feeBps, 0, MAX_FEE_BPS);
        sellerBps = bound(sellerBps, 0, BPS);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundFuzzed(amount, feeBps, DURATION, WINDOW);
        if (fromDelivered) t = _deliver(id, t);
        _dispute(id, t, fromDelivered ? buyer : seller);

        Balances memory before = _balances(t);
        vm.prank(arbiter);
        escrow.resolve(id, t, uint16(sellerBps));
        Balances memory afterwards = _balances(t);

        uint256 sellerGain = afterwards.seller - before.seller;
        uint256 feeGain = afterwards.feeRecipient - before.feeRecipient;
        uint256 buyerGain = afterwards.buyer - before.buyer;
        uint256 sellerShare = sellerGain + feeGain;
        assertEq(sellerGain + feeGain + buyerGain, amount, "seller + fee + buyer == amount");
        assertEq(sellerShare, (amount * sellerBps) / BPS, "seller share == floor(amount * sellerBps / 10_000)");
        assertEq(feeGain, (sellerShare * feeBps) / BPS, "fee == floor(sellerShare * feeBps / 10_000)");
        assertEq(afterwards.escrow, 0, "escrow emptied");
        _assertState(id, IAgentEscrow.Status.Resolved, t, "resolved");
    }

    function testFuzz_Refund_ReturnsTheWholeAmount(uint256 amount, uint256 duration, uint256 jump, uint256 who)
        public
    {
        amount = bound(amount, 1, MAX_AMOUNT);
        duration = bound(duration, 1, MAX_DURATION);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundFuzzed(amount, FEE_BPS, duration, WINDOW);
        _skip(bound(jump, 0, 2 * MAX_DURATION));
        address actor = [buyer, seller, stranger][bound(who, 0, 2)];

        Balances memory before = _balances(t);
        if (actor == stranger && _now() <= t.deadline) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, stranger));
            vm.prank(actor);
            escrow.refund(id, t);
            return;
        }
        vm.prank(actor);
        escrow.refund(id, t);
        _assertPaid(before, t, amount, 0, 0, "refund in full");
        _assertState(id, IAgentEscrow.Status.Refunded, t, "refunded");
    }

    /*------------------------------ derived escrow ids ------------------------------*/

    /// @dev Valid terms of `buyer_`'s escrow from fuzzed seeds: `times` packs the duration (low 64
    /// bits) and the dispute window (the next 32).
    function _fuzzedTerms(address buyer_, address seller_, uint256 amount, uint256 maxAmount, uint256 times)
        internal
        view
        returns (IAgentEscrow.Escrow memory)
    {
        return IAgentEscrow.Escrow({
            buyer: buyer_,
            seller: seller_,
            amount: bound(amount, 1, maxAmount),
            deadline: uint40(_now() + bound(uint64(times), 1, MAX_DURATION)),
            disputeWindow: uint32(bound(uint32(times >> 64), 0, MAX_DISPUTE_WINDOW)),
            deliveredAt: 0,
            feeBps: FEE_BPS
        });
    }

    /// @dev `t.buyer` funds `t` under `ref`, with `fund` or through an authorization the relayer submits.
    function _fundTerms(bytes32 ref, IAgentEscrow.Escrow memory t, uint256 key, bool byAuthorization) internal {
        if (byAuthorization) {
            Auth memory a = _authorize(key, t.buyer, ref, t.seller, t.amount, t.deadline, t.disputeWindow);
            _fundWithAuth(ref, t.buyer, t.seller, t.amount, t.deadline, t.disputeWindow, a);
        } else {
            vm.prank(t.buyer);
            escrow.fund(ref, t.seller, t.amount, t.deadline, t.disputeWindow);
        }
    }

    /// @dev A third party never blocks a funder: whoever funds a ref first, with any terms, the real
    /// buyer's funding under the same ref (by `fund` or by authorization) succeeds, and the two
    /// escrows live apart, each at escrowIdOf(its buyer, ref) with its own terms.
    function testFuzz_AThirdPartyNeverBlocksAFunder(
        address attacker,
        bytes32 ref,
        uint256 attackerAmount,
        uint256 attackerTimes,
        uint256 amount,
        uint256 times,
        bool byAuthorization
    ) public {
        vm.assume(attacker != address(0) && attacker != buyer);
        vm.assume(attacker != address(escrow) && attacker != address(usdc) && attacker != address(vm));
        // The attacker's escrow: any valid terms, for a seller other than itself (a bounty included).
        address attackerSeller = [seller, seller2, buyer, address(0)][(attackerTimes >> 96) % 4];
        if (attackerSeller == attacker) attackerSeller = address(0);
        IAgentEscrow.Escrow memory ts =
            _fuzzedTerms(attacker, attackerSeller, attackerAmount, MAX_AMOUNT, attackerTimes);
        usdc.mint(attacker, ts.amount);
        vm.prank(attacker);
        usdc.approve(address(escrow), ts.amount);
        vm.prank(attacker);
        escrow.fund(ref, ts.seller, ts.amount, ts.deadline, ts.disputeWindow);

        // The real buyer's escrow under the same ref.
        IAgentEscrow.Escrow memory t = _fuzzedTerms(buyer, seller, amount, START_BALANCE, times);
        bytes32 id = escrow.escrowIdOf(buyer, ref);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Funded(id, buyer, seller, ref, t.amount, t.deadline, t.disputeWindow, FEE_BPS);
        _fundTerms(ref, t, buyerKey, byAuthorization);

        bytes32 squatted = escrow.escrowIdOf(attacker, ref);
        assertEq(id, _idOf(buyer, ref), "the buyer's escrow at keccak(buyer, ref)");
        assertEq(squatted, _idOf(attacker, ref), "the attacker's at keccak(attacker, ref)");
        assertTrue(id != squatted, "two ids");
        _assertState(id, IAgentEscrow.Status.Funded, t, "buyer's escrow, its own terms");
        _assertState(squatted, IAgentEscrow.Status.Funded, ts, "attacker's escrow, its own terms");
        assertEq(usdc.balanceOf(buyer), START_BALANCE - t.amount, "buyer paid its own amount");
        assertEq(usdc.balanceOf(address(escrow)), t.amount + ts.amount, "escrow holds both");
    }

    /*------------------------------ time boundaries ------------------------------*/

    function testFuzz_Deliver_OnlyUntilTheDeadline(uint256 duration, uint256 jump) public {
        duration = bound(duration, 1, MAX_DURATION);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundFuzzed(AMOUNT, FEE_BPS, duration, WINDOW);
        _skip(bound(jump, 0, duration + 30 days));
        if (_now() > t.deadline) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_DeadlinePassed.selector, id, t.deadline));
            vm.prank(seller);
            escrow.deliver(id, t, DELIVERABLE);
        } else {
            t = _deliver(id, t);
            _assertState(id, IAgentEscrow.Status.Delivered, t, "delivered in time");
        }
    }

    function testFuzz_ReleaseByStranger_OnlyFromTheWindowEnd(uint256 window, uint256 jump) public {
        window = bound(window, 0, MAX_DISPUTE_WINDOW);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundFuzzed(AMOUNT, FEE_BPS, DURATION, window);
        t = _deliver(id, t);
        _skip(bound(jump, 0, 2 * window + 1));
        uint256 windowEnd = uint256(t.deliveredAt) + window;
        if (_now() < windowEnd) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_ReleaseNotAllowed.selector, id, stranger));
            vm.prank(stranger);
            escrow.release(id, t);
            // ... while a dispute is still possible.
            _dispute(id, t, buyer);
            _assertState(id, IAgentEscrow.Status.Disputed, t, "disputed in window");
        } else {
            vm.expectRevert(
                abi.encodeWithSelector(IAgentEscrow.Escrow_DisputeWindowClosed.selector, id, windowEnd)
            );
            vm.prank(buyer);
            escrow.dispute(id, t, REASON);
            vm.prank(stranger);
            escrow.release(id, t);
            _assertState(id, IAgentEscrow.Status.Released, t, "auto-released");
        }
    }

    function testFuzz_AssignSeller_ReopensOnlyAfterTheClaimLapses(uint256 claim, uint256 jump) public {
        claim = bound(claim, 1, MAX_DURATION);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundBounty();
        t = _assign(id, t, seller, uint40(_now() + claim));
        _skip(bound(jump, 0, 2 * claim));
        uint40 deadline = _deadline();
        if (_now() <= t.deadline) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_SellerAlreadyAssigned.selector, id, seller));
            vm.prank(operator);
            escrow.assignSeller(id, t, seller2, deadline);
        } else {
            IAgentEscrow.Escrow memory next = _assign(id, t, seller2, deadline);
            _assertState(id, IAgentEscrow.Status.Funded, next, "re-assigned");
        }
    }

    /*------------------------------ accepted and rejected inputs ------------------------------*/

    function testFuzz_Fund_AcceptsEveryValidInput(uint256 amount, uint256 duration, uint256 window) public {
        amount = bound(amount, 1, MAX_AMOUNT);
        duration = bound(duration, 1, MAX_DURATION);
        window = bound(window, 0, MAX_DISPUTE_WINDOW);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundFuzzed(amount, FEE_BPS, duration, window);
        _assertState(id, IAgentEscrow.Status.Funded, t, "funded");
        assertEq(usdc.balanceOf(address(escrow)), amount, "escrow holds the amount");
    }

    function testFuzz_RevertWhen_AmountAboveUint128Max(uint256 amount) public {
        amount = bound(amount, MAX_AMOUNT + 1, type(uint256).max);
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidAmount.selector, amount));
        vm.prank(buyer);
        escrow.fund(ref, seller, amount, deadline, WINDOW);
    }

    function testFuzz_RevertWhen_DeadlineNotInTheFuture(uint256 deadline) public {
        deadline = bound(deadline, 0, _now());
        bytes32 ref = _newRef();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, deadline));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, uint40(deadline), WINDOW);
    }

    function testFuzz_RevertWhen_DeadlineBeyondMaxDuration(uint256 deadline) public {
        deadline = bound(deadline, _now() + MAX_DURATION + 1, type(uint40).max);
        bytes32 ref = _newRef();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, deadline));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, uint40(deadline), WINDOW);
    }

    function testFuzz_RevertWhen_DisputeWindowAboveMax(uint256 window) public {
        window = bound(window, uint256(MAX_DISPUTE_WINDOW) + 1, type(uint32).max);
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDisputeWindow.selector, window));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, uint32(window));
    }

    function testFuzz_RevertWhen_SellerBpsAbove10000(uint256 sellerBps) public {
        sellerBps = bound(sellerBps, BPS + 1, type(uint16).max);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSellerBps.selector, sellerBps));
        vm.prank(arbiter);
        escrow.resolve(id, t, uint16(sellerBps));
    }

    function testFuzz_SetFeeBps_AcceptsUpToTheCapOnly(uint256 feeBps) public {
        feeBps = bound(feeBps, 0, type(uint16).max);
        if (feeBps > MAX_FEE_BPS) {
            vm.expectRevert(
                abi.encodeWithSelector(IAgentEscrow.Escrow_FeeAboveCap.selector, feeBps, MAX_FEE_BPS)
            );
            vm.prank(owner);
            escrow.setFeeBps(uint16(feeBps));
            assertEq(escrow.feeBps(), FEE_BPS, "fee unchanged");
        } else {
            vm.prank(owner);
            escrow.setFeeBps(uint16(feeBps));
            assertEq(escrow.feeBps(), feeBps, "fee set");
        }
    }

    function testFuzz_RevertWhen_AnyTermDiffers(uint256 field, uint256 delta, uint256 move) public {
        field = bound(field, 0, TERM_FIELDS - 1);
        delta = bound(delta, 1, type(uint16).max); // fits every field's type, never zero
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        IAgentEscrow.Escrow memory forged = _copy(t);
        if (field == 0) forged.buyer = address(uint160(forged.buyer) ^ uint160(delta));
        else if (field == 1) forged.seller = address(uint160(forged.seller) ^ uint160(delta));
        else if (field == 2) forged.amount ^= delta;
        else if (field == 3) forged.deadline ^= uint40(delta);
        else if (field == 4) forged.disputeWindow ^= uint32(delta);
        else if (field == 5) forged.deliveredAt ^= uint40(delta);
        else forged.feeBps ^= uint16(delta);

        move = bound(move, 0, 3);
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
        if (move == 0) {
            vm.prank(buyer);
            escrow.release(id, forged);
        } else if (move == 1) {
            vm.prank(seller);
            escrow.refund(id, forged);
        } else if (move == 2) {
            vm.prank(buyer);
            escrow.dispute(id, forged, REASON);
        } else {
            vm.prank(operator);
            escrow.assignSeller(id, forged, seller2, deadline);
        }
        _assertState(id, IAgentEscrow.Status.Delivered, t, "unchanged");
    }

    function testFuzz_InvalidateNonces_MarksExactlyTheMask(address signer, uint256 wordPos, uint256 mask, uint8 bit)
        public
    {
        vm.prank(signer);
        escrow.invalidateNonces(wordPos, mask);
        uint256 nonce = (wordPos << 8) | bit;
        if ((wordPos << 8) >> 8 != wordPos) return; // the word is beyond the nonce space
        assertEq(escrow.isNonceUsed(signer, nonce), (mask >> bit) & 1 == 1, "bit of the mask");
    }
}
