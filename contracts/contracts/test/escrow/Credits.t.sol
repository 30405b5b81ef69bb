// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {MockUSDC} from "../../mocks/MockUSDC.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract CreditsTest is EscrowTestBase {
    function _assertCredit(address account, uint256 amount, string memory label) internal view {
        assertEq(escrow.creditOf(account), amount, string.concat(label, ": creditOf"));
    }

    function _assertSolvent(uint256 openAmounts) internal view {
        assertEq(
            usdc.balanceOf(address(escrow)),
            openAmounts + escrow.totalCredits(),
            "escrow balance == open amounts + total credits"
        );
    }

    /*------------------------------ blacklisted seller ------------------------------*/

    function test_GivenSellerBlacklisted_WhenBuyerReleases_CreditsSellerAndPaysFee() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(seller);
        Balances memory before = _balances(t);

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Released(id, buyer, AMOUNT - FEE, FEE);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Credited(seller, AMOUNT - FEE);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(address(escrow), feeRecipient, FEE);
        vm.prank(buyer);
        escrow.release(id, t);

        _assertState(id, IAgentEscrow.Status.Released, t, "released despite the blacklist");
        _assertCredit(seller, AMOUNT - FEE, "seller credited");
        assertEq(escrow.totalCredits(), AMOUNT - FEE, "totalCredits");
        assertEq(usdc.balanceOf(seller), before.seller, "seller balance unchanged");
        assertEq(usdc.balanceOf(feeRecipient), before.feeRecipient + FEE, "fee paid");
        _assertSolvent(0);
    }

    function test_GivenSellerBlacklisted_WhenWindowElapsedAndStrangerReleases_CreditsSeller() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(seller);
        _skip(WINDOW);
        vm.prank(stranger);
        escrow.release(id, t);
        _assertCredit(seller, AMOUNT - FEE, "seller credited on auto-release");
        _assertSolvent(0);
    }

    function test_GivenSellerBlacklisted_WhenBuyerRefunds_BuyerIsPaidInFull() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _blacklist(seller);
        Balances memory before = _balances(t);
        vm.prank(buyer);
        escrow.refund(id, t);
        _assertPaid(before, t, AMOUNT, 0, 0, "refund unaffected");
        assertEq(escrow.totalCredits(), 0, "nothing credited");
    }

    function test_GivenSellerBlacklisted_WhenSellerRefundsDelivered_BuyerIsPaidInFull() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(seller);
        Balances memory before = _balances(t);
        vm.prank(seller);
        escrow.refund(id, t);
        _assertPaid(before, t, AMOUNT, 0, 0, "refund by a blacklisted seller");
    }

    function test_GivenSellerBlacklisted_WhenStrangerRefundsAfterDeadline_BuyerIsPaidInFull() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fund();
        _blacklist(seller);
        vm.warp(uint256(t.deadline) + 1);
        Balances memory before = _balances(t);
        vm.prank(stranger);
        escrow.refund(id, t);
        _assertPaid(before, t, AMOUNT, 0, 0, "timeout refund");
    }

    function test_GivenSellerBlacklisted_WhenResolved_CreditsSellerSharePaysBuyerAndFee() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        _blacklist(seller);
        Balances memory before = _balances(t);

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Resolved(id, 6_000, 59.4e6, 40e6, 0.6e6);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Credited(seller, 59.4e6);
        vm.prank(arbiter);
        escrow.resolve(id, t, 6_000);

        _assertPaid(before, t, 40e6, 0, 0.6e6, "buyer and fee paid");
        _assertCredit(seller, 59.4e6, "seller share credited");
        _assertSolvent(0);
    }

    /*------------------------------ blacklisted buyer ------------------------------*/

    function test_GivenBuyerBlacklisted_WhenSellerRefunds_CreditsBuyer() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(buyer);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Refunded(id, seller, AMOUNT);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Credited(buyer, AMOUNT);
        vm.prank(seller);
        escrow.refund(id, t);
        _assertState(id, IAgentEscrow.Status.Refunded, t, "refunded");
        _assertCredit(buyer, AMOUNT, "buyer credited");
        _assertSolvent(0);
    }

    function test_GivenBuyerBlacklisted_WhenBuyerReleases_SellerIsPaid() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(buyer);
        Balances memory before = _balances(t);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, AMOUNT - FEE, FEE, "seller unaffected by the buyer's blacklisting");
        assertEq(escrow.totalCredits(), 0, "nothing credited");
    }

    function test_GivenBuyerBlacklisted_WhenResolved_CreditsBuyerSharePaysSeller() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        _blacklist(buyer);
        Balances memory before = _balances(t);
        vm.prank(arbiter);
        escrow.resolve(id, t, 5_000);
        _assertPaid(before, t, 0, 49.5e6, 0.5e6, "seller and fee paid");
        _assertCredit(buyer, 50e6, "buyer share credited");
        _assertSolvent(0);
    }

    /*------------------------------ blacklisted fee recipient ------------------------------*/

    function test_GivenFeeRecipientBlacklisted_WhenReleased_SellerPaidAndFeeCredited() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(feeRecipient);
        Balances memory before = _balances(t);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Released(id, buyer, AMOUNT - FEE, FEE);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(address(escrow), seller, AMOUNT - FEE);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Credited(feeRecipient, FEE);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertPaid(before, t, 0, AMOUNT - FEE, 0, "seller paid, fee held");
        _assertCredit(feeRecipient, FEE, "fee credited");
        _assertSolvent(0);
    }

    function test_GivenFeeRecipientBlacklisted_WhenResolved_PartiesPaidAndFeeCredited() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDispute();
        _blacklist(feeRecipient);
        Balances memory before = _balances(t);
        vm.prank(arbiter);
        escrow.resolve(id, t, 5_000);
        _assertPaid(before, t, 50e6, 49.5e6, 0, "parties paid");
        _assertCredit(feeRecipient, 0.5e6, "fee credited");
    }

    function test_GivenSellerAndFeeRecipientBlacklisted_WhenReleased_BothCredited() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(seller);
        _blacklist(feeRecipient);
        vm.prank(buyer);
        escrow.release(id, t);
        _assertCredit(seller, AMOUNT - FEE, "seller credited");
        _assertCredit(feeRecipient, FEE, "fee credited");
        assertEq(escrow.totalCredits(), AMOUNT, "everything credited");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT, "escrow keeps the credits");
    }

    function test_GivenPayeeBlacklisted_CreditsAccumulateAcrossEscrows() public {
        (bytes32 a, IAgentEscrow.Escrow memory ta) = _fundAndDeliver();
        (bytes32 b, IAgentEscrow.Escrow memory tb) = _fundAndDispute();
        (bytes32 c, IAgentEscrow.Escrow memory tc) = _fund();
        _blacklist(seller);
        vm.prank(buyer);
        escrow.release(a, ta);
        vm.prank(arbiter);
        escrow.resolve(b, tb, 10_000);
        _assertCredit(seller, 2 * (AMOUNT - FEE), "two payouts credited");
        _assertSolvent(AMOUNT);
        vm.prank(buyer);
        escrow.refund(c, tc);
        _assertSolvent(0);
    }

    /*------------------------------ withdrawCredit ------------------------------*/

    function test_GivenCredit_WhenUnblacklistedAndAnyoneWithdraws_PaysTheAccount() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(seller);
        vm.prank(buyer);
        escrow.release(id, t);
        _unBlacklist(seller);

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.CreditWithdrawn(seller, AMOUNT - FEE);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(address(escrow), seller, AMOUNT - FEE);
        vm.prank(stranger);
        escrow.withdrawCredit(seller);

        assertEq(usdc.balanceOf(seller), START_BALANCE + AMOUNT - FEE, "seller finally paid");
        assertEq(usdc.balanceOf(stranger), START_BALANCE, "caller gets nothing");
        _assertCredit(seller, 0, "credit cleared");
        assertEq(escrow.totalCredits(), 0, "totalCredits cleared");
        assertEq(usdc.balanceOf(address(escrow)), 0, "escrow empty");
    }

    function test_GivenCredit_WhenAccountWithdrawsItself_PaysIt() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(feeRecipient);
        vm.prank(buyer);
        escrow.release(id, t);
        _unBlacklist(feeRecipient);
        vm.prank(feeRecipient);
        escrow.withdrawCredit(feeRecipient);
        assertEq(usdc.balanceOf(feeRecipient), FEE, "fee recipient paid");
        _assertCredit(feeRecipient, 0, "credit cleared");
    }

    function test_RevertGiven_StillBlacklisted_WhenWithdrawn_KeepsCredit() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(seller);
        vm.prank(buyer);
        escrow.release(id, t);

        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, seller));
        vm.prank(stranger);
        escrow.withdrawCredit(seller);

        _assertCredit(seller, AMOUNT - FEE, "credit kept");
        assertEq(escrow.totalCredits(), AMOUNT - FEE, "totalCredits kept");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT - FEE, "funds kept");
    }

    function test_RevertGiven_NoCredit() public {
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NoCredit.selector, seller));
        escrow.withdrawCredit(seller);
    }

    function test_RevertGiven_CreditAlreadyWithdrawn() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(seller);
        vm.prank(buyer);
        escrow.release(id, t);
        _unBlacklist(seller);
        escrow.withdrawCredit(seller);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NoCredit.selector, seller));
        escrow.withdrawCredit(seller);
    }

    function test_RevertGiven_OtherAccountHasCredit_WhenWithdrawingForAnother() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        _blacklist(seller);
        vm.prank(buyer);
        escrow.release(id, t);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NoCredit.selector, stranger));
        vm.prank(stranger);
        escrow.withdrawCredit(stranger);
        _assertCredit(seller, AMOUNT - FEE, "seller's credit untouched");
    }

    function test_RevertGiven_ZeroAddress_NoCredit() public {
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NoCredit.selector, address(0)));
        escrow.withdrawCredit(address(0));
    }
}
