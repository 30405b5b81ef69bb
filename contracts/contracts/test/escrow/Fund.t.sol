// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {MockUSDC} from "../../mocks/MockUSDC.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract FundTest is EscrowTestBase {
    function _terms(address seller_, uint256 amount, uint40 deadline, uint32 window)
        internal
        view
        returns (IAgentEscrow.Escrow memory)
    {
        return IAgentEscrow.Escrow({
            buyer: buyer,
            seller: seller_,
            amount: amount,
            deadline: deadline,
            disputeWindow: window,
            deliveredAt: 0,
            feeBps: escrow.feeBps()
        });
    }

    /*------------------------------ success ------------------------------*/

    function test_WhenValid_StoresTermsHashPullsFundsAndEmits() public {
        bytes32 ref = _newRef();
        bytes32 id = _idOf(buyer, ref);
        uint40 deadline = _deadline();

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Funded(id, buyer, seller, ref, AMOUNT, deadline, WINDOW, FEE_BPS);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(buyer, address(escrow), AMOUNT);
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);

        _assertState(id, IAgentEscrow.Status.Funded, _terms(seller, AMOUNT, deadline, WINDOW), "funded");
        assertEq(usdc.balanceOf(buyer), START_BALANCE - AMOUNT, "buyer debited the amount");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT, "escrow holds the amount");
        assertEq(usdc.balanceOf(seller), START_BALANCE, "seller untouched");
        assertEq(escrow.totalCredits(), 0, "no credits");
    }

    function test_GivenZeroSeller_OpensUnclaimedBounty() public {
        bytes32 ref = _newRef();
        bytes32 id = _idOf(buyer, ref);
        uint40 deadline = _deadline();

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Funded(id, buyer, address(0), ref, AMOUNT, deadline, WINDOW, FEE_BPS);
        vm.prank(buyer);
        escrow.fund(ref, address(0), AMOUNT, deadline, WINDOW);

        _assertState(id, IAgentEscrow.Status.Funded, _terms(address(0), AMOUNT, deadline, WINDOW), "bounty");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT, "escrow holds the bounty");
    }

    function test_WhenDeadlineOneSecondAhead_Succeeds() public {
        uint40 deadline = uint40(_now() + 1);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, AMOUNT, deadline, WINDOW);
        _assertState(id, IAgentEscrow.Status.Funded, t, "deadline now + 1");
    }

    function test_WhenDeadlineAtMaxDuration_Succeeds() public {
        uint40 deadline = uint40(_now() + MAX_DURATION);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, AMOUNT, deadline, WINDOW);
        _assertState(id, IAgentEscrow.Status.Funded, t, "deadline now + MAX_DURATION");
    }

    function test_WhenDisputeWindowZero_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, AMOUNT, _deadline(), 0);
        _assertState(id, IAgentEscrow.Status.Funded, t, "window 0");
    }

    function test_WhenDisputeWindowAtMax_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, AMOUNT, _deadline(), MAX_DISPUTE_WINDOW);
        _assertState(id, IAgentEscrow.Status.Funded, t, "window MAX_DISPUTE_WINDOW");
    }

    function test_WhenAmountOne_Succeeds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, 1, _deadline(), WINDOW);
        _assertState(id, IAgentEscrow.Status.Funded, t, "amount 1");
        assertEq(usdc.balanceOf(address(escrow)), 1, "escrow holds 1");
    }

    function test_WhenAmountIsUint128Max_Succeeds() public {
        usdc.mint(buyer, MAX_AMOUNT);
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(buyer, seller, MAX_AMOUNT, _deadline(), WINDOW);
        _assertState(id, IAgentEscrow.Status.Funded, t, "amount 2^128 - 1");
        assertEq(usdc.balanceOf(address(escrow)), MAX_AMOUNT, "escrow holds 2^128 - 1");
    }

    function test_GivenFeeChanged_LocksTheCurrentFeeInTheTerms() public {
        vm.prank(owner);
        escrow.setFeeBps(250);
        bytes32 ref = _newRef();
        bytes32 id = _idOf(buyer, ref);
        uint40 deadline = _deadline();
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Funded(id, buyer, seller, ref, AMOUNT, deadline, WINDOW, 250);
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);

        IAgentEscrow.Escrow memory t = _terms(seller, AMOUNT, deadline, WINDOW);
        assertEq(t.feeBps, 250, "terms carry the new fee");
        _assertState(id, IAgentEscrow.Status.Funded, t, "funded at 250 bps");
    }

    function test_GivenSameTerms_WhenFundedUnderTwoRefs_OpensTwoEscrows() public {
        uint40 deadline = _deadline();
        (bytes32 a, IAgentEscrow.Escrow memory ta) = _fundAs(buyer, seller, AMOUNT, deadline, WINDOW);
        (bytes32 b, IAgentEscrow.Escrow memory tb) = _fundAs(buyer, seller, AMOUNT, deadline, WINDOW);
        _assertState(a, IAgentEscrow.Status.Funded, ta, "first");
        _assertState(b, IAgentEscrow.Status.Funded, tb, "second");
        assertEq(usdc.balanceOf(address(escrow)), 2 * AMOUNT, "escrow holds both");
    }

    function test_GivenUnknownId_EscrowStateIsEmpty() public view {
        (IAgentEscrow.Status status, bytes32 termsHash) = escrow.escrowState(UNKNOWN_ID);
        assertEq(uint256(status), uint256(IAgentEscrow.Status.None), "status None");
        assertEq(termsHash, bytes32(0), "no hash");
    }

    /*------------------------------ escrow ids derived from the buyer ------------------------------*/

    function test_EscrowIdOf_IsTheHashOfBuyerAndRef() public view {
        bytes32 ref = keccak256("some ref");
        assertEq(escrow.escrowIdOf(buyer, ref), keccak256(abi.encode(buyer, ref)), "escrowIdOf == keccak(buyer, ref)");
        assertTrue(escrow.escrowIdOf(buyer, ref) != escrow.escrowIdOf(stranger, ref), "id depends on the buyer");
        assertTrue(escrow.escrowIdOf(buyer, ref) != escrow.escrowIdOf(buyer, ~ref), "id depends on the ref");
        assertTrue(escrow.escrowIdOf(buyer, ref) != ref, "id is not the ref itself");
    }

    function test_WhenFunded_TheEscrowLivesAtEscrowIdOfCallerAndRef() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);

        IAgentEscrow.Escrow memory t = _terms(seller, AMOUNT, deadline, WINDOW);
        _assertState(escrow.escrowIdOf(buyer, ref), IAgentEscrow.Status.Funded, t, "at escrowIdOf(buyer, ref)");
        (IAgentEscrow.Status atRef,) = escrow.escrowState(ref);
        assertEq(uint256(atRef), uint256(IAgentEscrow.Status.None), "nothing stored under the raw ref");
        (IAgentEscrow.Status atOther,) = escrow.escrowState(escrow.escrowIdOf(stranger, ref));
        assertEq(uint256(atOther), uint256(IAgentEscrow.Status.None), "nothing stored for another buyer");
    }

    function test_GivenSameRef_WhenFundedByTwoBuyers_OpensTwoSeparateEscrows() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        (bytes32 a, IAgentEscrow.Escrow memory ta) = _fundAsWithRef(buyer, ref, seller, AMOUNT, deadline, WINDOW);
        (bytes32 b, IAgentEscrow.Escrow memory tb) = _fundAsWithRef(stranger, ref, seller2, 1, deadline + 1, 0);

        assertTrue(a != b, "two ids");
        assertEq(a, escrow.escrowIdOf(buyer, ref), "the buyer's escrow at escrowIdOf(buyer, ref)");
        assertEq(b, escrow.escrowIdOf(stranger, ref), "the stranger's escrow at escrowIdOf(stranger, ref)");
        _assertState(a, IAgentEscrow.Status.Funded, ta, "buyer's escrow, its own terms");
        _assertState(b, IAgentEscrow.Status.Funded, tb, "stranger's escrow, its own terms");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT + 1, "escrow holds both amounts");

        // Each escrow runs on its own: refunding one leaves the other funded.
        vm.prank(stranger);
        escrow.refund(b, tb);
        _assertState(b, IAgentEscrow.Status.Refunded, tb, "stranger's escrow refunded");
        _assertState(a, IAgentEscrow.Status.Funded, ta, "buyer's escrow untouched");
    }

    /// @dev The squat the derived ids prevent: a third party reads a pending ref and funds it first,
    /// with itself as buyer and the same terms.
    function test_GivenThirdPartyFundedTheRefFirst_WhenBuyerFunds_OpensTheBuyersEscrow() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        (bytes32 squatted, IAgentEscrow.Escrow memory ts) = _fundAsWithRef(stranger, ref, seller, 1, deadline, WINDOW);

        bytes32 id = _idOf(buyer, ref);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Funded(id, buyer, seller, ref, AMOUNT, deadline, WINDOW, FEE_BPS);
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);

        IAgentEscrow.Escrow memory t = _terms(seller, AMOUNT, deadline, WINDOW);
        _assertState(id, IAgentEscrow.Status.Funded, t, "the buyer's escrow");
        _assertState(squatted, IAgentEscrow.Status.Funded, ts, "the third party's escrow, apart");
        assertEq(usdc.balanceOf(buyer), START_BALANCE - AMOUNT, "buyer paid its own escrow only");
        // The third party's terms do not open the buyer's escrow.
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
        vm.prank(stranger);
        escrow.refund(id, ts);
    }

    /*------------------------------ reverts ------------------------------*/

    function test_RevertGiven_BuyerReusesItsOwnRef() public {
        (bytes32 id,) = _fund();
        bytes32 ref = _refOf(id);
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_AlreadyExists.selector, id));
        vm.prank(buyer);
        escrow.fund(ref, seller2, AMOUNT + 1, deadline + 1, WINDOW + 1);
    }

    function test_RevertGiven_BuyerReusesItsOwnRef_CheckedBeforeTheOtherRules() public {
        (bytes32 id,) = _fund();
        bytes32 ref = _refOf(id);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_AlreadyExists.selector, id));
        vm.prank(buyer);
        escrow.fund(ref, buyer, 0, 0, type(uint32).max);
    }

    function test_RevertGiven_RefOfReleasedEscrow() public {
        (bytes32 id,) = _terminal(IAgentEscrow.Status.Released);
        bytes32 ref = _refOf(id);
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_AlreadyExists.selector, id));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);
    }

    function test_RevertGiven_RefOfRefundedEscrow() public {
        (bytes32 id,) = _terminal(IAgentEscrow.Status.Refunded);
        bytes32 ref = _refOf(id);
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_AlreadyExists.selector, id));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);
    }

    function test_RevertGiven_RefOfResolvedEscrow() public {
        (bytes32 id,) = _terminal(IAgentEscrow.Status.Resolved);
        bytes32 ref = _refOf(id);
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_AlreadyExists.selector, id));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);
    }

    function test_RevertWhen_AmountZero() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidAmount.selector, 0));
        vm.prank(buyer);
        escrow.fund(ref, seller, 0, deadline, WINDOW);
    }

    function test_RevertWhen_AmountAboveUint128Max() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        usdc.mint(buyer, MAX_AMOUNT + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidAmount.selector, MAX_AMOUNT + 1));
        vm.prank(buyer);
        escrow.fund(ref, seller, MAX_AMOUNT + 1, deadline, WINDOW);
    }

    function test_RevertWhen_SellerIsBuyer() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSeller.selector, buyer));
        vm.prank(buyer);
        escrow.fund(ref, buyer, AMOUNT, deadline, WINDOW);
    }

    function test_RevertWhen_DeadlineIsNow() public {
        bytes32 ref = _newRef();
        uint40 deadline = uint40(_now());
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, deadline));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);
    }

    function test_RevertWhen_DeadlineInThePast() public {
        bytes32 ref = _newRef();
        uint40 deadline = uint40(_now() - 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, deadline));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);
    }

    function test_RevertWhen_DeadlineZero() public {
        bytes32 ref = _newRef();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, 0));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, 0, WINDOW);
    }

    function test_RevertWhen_DeadlineBeyondMaxDuration() public {
        bytes32 ref = _newRef();
        uint40 deadline = uint40(_now() + MAX_DURATION + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, deadline));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);
    }

    function test_RevertWhen_DisputeWindowAboveMax() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDisputeWindow.selector, MAX_DISPUTE_WINDOW + 1)
        );
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, MAX_DISPUTE_WINDOW + 1);
    }

    function test_RevertWhen_AllowanceTooLow() public {
        address agent = makeAddr("agent-without-allowance");
        usdc.mint(agent, AMOUNT);
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(escrow), 0, AMOUNT)
        );
        vm.prank(agent);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);
        (IAgentEscrow.Status status,) = escrow.escrowState(_idOf(agent, ref));
        assertEq(uint256(status), uint256(IAgentEscrow.Status.None), "nothing stored");
    }

    function test_RevertWhen_BalanceTooLow() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        vm.expectRevert(
            abi.encodeWithSelector(
                IERC20Errors.ERC20InsufficientBalance.selector, buyer, START_BALANCE, START_BALANCE + 1
            )
        );
        vm.prank(buyer);
        escrow.fund(ref, seller, START_BALANCE + 1, deadline, WINDOW);
    }

    function test_RevertGiven_BuyerBlacklisted() public {
        _blacklist(buyer);
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, buyer));
        vm.prank(buyer);
        escrow.fund(ref, seller, AMOUNT, deadline, WINDOW);
    }
}
