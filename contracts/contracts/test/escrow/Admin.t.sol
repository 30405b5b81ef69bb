// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";

import {AgentEscrow} from "../../AgentEscrow.sol";
import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract AdminTest is EscrowTestBase {
    /*------------------------------ constructor ------------------------------*/

    function test_Constructor_SetsConfigurationAndConstants() public view {
        assertEq(escrow.token(), address(usdc), "token");
        assertEq(escrow.MAX_FEE_BPS(), MAX_FEE_BPS, "MAX_FEE_BPS");
        assertEq(escrow.feeBps(), FEE_BPS, "feeBps");
        assertEq(escrow.feeRecipient(), feeRecipient, "feeRecipient");
        assertEq(escrow.arbiter(), arbiter, "arbiter");
        assertEq(escrow.operator(), operator, "operator");
        assertEq(escrow.owner(), owner, "owner");
        assertEq(escrow.pendingOwner(), address(0), "no pending owner");
        assertEq(escrow.MAX_DURATION(), 365 days, "MAX_DURATION");
        assertEq(escrow.MAX_DISPUTE_WINDOW(), 30 days, "MAX_DISPUTE_WINDOW");
        assertEq(escrow.totalCredits(), 0, "no credits");
    }

    function test_Constructor_EmitsOwnershipAndEveryRole() public {
        vm.expectEmit();
        emit Ownable.OwnershipTransferred(address(0), owner);
        vm.expectEmit();
        emit IAgentEscrow.FeeUpdated(FEE_BPS);
        vm.expectEmit();
        emit IAgentEscrow.FeeRecipientUpdated(feeRecipient);
        vm.expectEmit();
        emit IAgentEscrow.ArbiterUpdated(arbiter);
        vm.expectEmit();
        emit IAgentEscrow.OperatorUpdated(operator);
        new AgentEscrow(address(usdc), MAX_FEE_BPS, FEE_BPS, feeRecipient, arbiter, operator, owner);
    }

    function test_Constructor_GivenZeroOperator_Deploys() public {
        AgentEscrow e = new AgentEscrow(address(usdc), MAX_FEE_BPS, FEE_BPS, feeRecipient, arbiter, address(0), owner);
        assertEq(e.operator(), address(0), "no operator");
    }

    function test_Constructor_GivenFullCapAndFee_Deploys() public {
        AgentEscrow e = new AgentEscrow(address(usdc), 10_000, 10_000, feeRecipient, arbiter, operator, owner);
        assertEq(e.MAX_FEE_BPS(), 10_000, "cap 100%");
        assertEq(e.feeBps(), 10_000, "fee 100%");
    }

    function test_RevertWhen_ConstructorTokenIsZero() public {
        vm.expectRevert(IAgentEscrow.Escrow_ZeroAddress.selector);
        new AgentEscrow(address(0), MAX_FEE_BPS, FEE_BPS, feeRecipient, arbiter, operator, owner);
    }

    function test_RevertWhen_ConstructorFeeRecipientIsZero() public {
        vm.expectRevert(IAgentEscrow.Escrow_ZeroAddress.selector);
        new AgentEscrow(address(usdc), MAX_FEE_BPS, FEE_BPS, address(0), arbiter, operator, owner);
    }

    function test_RevertWhen_ConstructorArbiterIsZero() public {
        vm.expectRevert(IAgentEscrow.Escrow_ZeroAddress.selector);
        new AgentEscrow(address(usdc), MAX_FEE_BPS, FEE_BPS, feeRecipient, address(0), operator, owner);
    }

    function test_RevertWhen_ConstructorOwnerIsZero() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableInvalidOwner.selector, address(0)));
        new AgentEscrow(address(usdc), MAX_FEE_BPS, FEE_BPS, feeRecipient, arbiter, operator, address(0));
    }

    function test_RevertWhen_ConstructorCapAbove10000() public {
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_FeeAboveCap.selector, 10_001, 10_000));
        new AgentEscrow(address(usdc), 10_001, 0, feeRecipient, arbiter, operator, owner);
    }

    function test_RevertWhen_ConstructorFeeAboveCap() public {
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_FeeAboveCap.selector, MAX_FEE_BPS + 1, MAX_FEE_BPS));
        new AgentEscrow(address(usdc), MAX_FEE_BPS, MAX_FEE_BPS + 1, feeRecipient, arbiter, operator, owner);
    }

    /*------------------------------ setFeeBps ------------------------------*/

    function test_SetFeeBps_WhenWithinCap_UpdatesAndEmits() public {
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.FeeUpdated(250);
        vm.prank(owner);
        escrow.setFeeBps(250);
        assertEq(escrow.feeBps(), 250, "fee updated");
    }

    function test_SetFeeBps_WhenAtCap_Updates() public {
        vm.prank(owner);
        escrow.setFeeBps(MAX_FEE_BPS);
        assertEq(escrow.feeBps(), MAX_FEE_BPS, "fee at the cap");
    }

    function test_SetFeeBps_WhenZero_Updates() public {
        vm.prank(owner);
        escrow.setFeeBps(0);
        assertEq(escrow.feeBps(), 0, "fee zero");
    }

    function test_RevertWhen_SetFeeBpsAboveCap() public {
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_FeeAboveCap.selector, MAX_FEE_BPS + 1, MAX_FEE_BPS));
        vm.prank(owner);
        escrow.setFeeBps(MAX_FEE_BPS + 1);
        assertEq(escrow.feeBps(), FEE_BPS, "fee unchanged");
    }

    function test_RevertWhen_SetFeeBpsByNonOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        vm.prank(stranger);
        escrow.setFeeBps(0);
    }

    function test_GivenFeeChanged_OpenEscrowsKeepTheirFeeAndNewOnesTakeTheNewFee() public {
        (bytes32 oldId, IAgentEscrow.Escrow memory oldTerms) = _fundAndDeliver();
        vm.prank(owner);
        escrow.setFeeBps(500);
        (bytes32 newId, IAgentEscrow.Escrow memory newTerms) = _fundAndDeliver();
        assertEq(oldTerms.feeBps, FEE_BPS, "old terms keep 1%");
        assertEq(newTerms.feeBps, 500, "new terms carry 5%");

        vm.startPrank(buyer);
        escrow.release(oldId, oldTerms);
        assertEq(usdc.balanceOf(feeRecipient), FEE, "1% on the old escrow");
        escrow.release(newId, newTerms);
        vm.stopPrank();
        assertEq(usdc.balanceOf(feeRecipient), FEE + 5e6, "5% on the new escrow");
        assertEq(usdc.balanceOf(seller), START_BALANCE + (AMOUNT - FEE) + (AMOUNT - 5e6), "seller paid both");
    }

    function test_RevertGiven_FeeChanged_WhenOldTermsClaimTheNewFee() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.prank(owner);
        escrow.setFeeBps(0);
        IAgentEscrow.Escrow memory cheaper = _copy(t);
        cheaper.feeBps = 0;
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_TermsMismatch.selector, id));
        vm.prank(buyer);
        escrow.release(id, cheaper);
    }

    /*------------------------------ roles ------------------------------*/

    function test_SetFeeRecipient_UpdatesAndEmits() public {
        address next = makeAddr("nextFeeRecipient");
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.FeeRecipientUpdated(next);
        vm.prank(owner);
        escrow.setFeeRecipient(next);
        assertEq(escrow.feeRecipient(), next, "fee recipient updated");
    }

    function test_RevertWhen_SetFeeRecipientZero() public {
        vm.expectRevert(IAgentEscrow.Escrow_ZeroAddress.selector);
        vm.prank(owner);
        escrow.setFeeRecipient(address(0));
    }

    function test_RevertWhen_SetFeeRecipientByNonOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, feeRecipient));
        vm.prank(feeRecipient);
        escrow.setFeeRecipient(stranger);
    }

    function test_SetArbiter_UpdatesAndEmits() public {
        address next = makeAddr("nextArbiter");
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.ArbiterUpdated(next);
        vm.prank(owner);
        escrow.setArbiter(next);
        assertEq(escrow.arbiter(), next, "arbiter updated");
    }

    function test_RevertWhen_SetArbiterZero() public {
        vm.expectRevert(IAgentEscrow.Escrow_ZeroAddress.selector);
        vm.prank(owner);
        escrow.setArbiter(address(0));
    }

    function test_RevertWhen_SetArbiterByNonOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, arbiter));
        vm.prank(arbiter);
        escrow.setArbiter(stranger);
    }

    function test_SetOperator_UpdatesAndEmits() public {
        address next = makeAddr("nextOperator");
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.OperatorUpdated(next);
        vm.prank(owner);
        escrow.setOperator(next);
        assertEq(escrow.operator(), next, "operator updated");
    }

    function test_SetOperator_WhenZero_DisablesOperator() public {
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.OperatorUpdated(address(0));
        vm.prank(owner);
        escrow.setOperator(address(0));
        assertEq(escrow.operator(), address(0), "operator disabled");
    }

    function test_RevertWhen_SetOperatorByNonOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, operator));
        vm.prank(operator);
        escrow.setOperator(stranger);
    }

    /*------------------------------ two-step ownership ------------------------------*/

    function test_TransferOwnership_GivenPendingOwnerAccepts_MovesOwnership() public {
        address next = makeAddr("nextOwner");
        vm.expectEmit(address(escrow));
        emit Ownable2Step.OwnershipTransferStarted(owner, next);
        vm.prank(owner);
        escrow.transferOwnership(next);
        assertEq(escrow.owner(), owner, "owner unchanged until accepted");
        assertEq(escrow.pendingOwner(), next, "pending owner");

        // The old owner keeps its powers until acceptance.
        vm.prank(owner);
        escrow.setFeeBps(200);

        vm.expectEmit(address(escrow));
        emit Ownable.OwnershipTransferred(owner, next);
        vm.prank(next);
        escrow.acceptOwnership();
        assertEq(escrow.owner(), next, "ownership moved");
        assertEq(escrow.pendingOwner(), address(0), "pending cleared");

        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, owner));
        vm.prank(owner);
        escrow.setFeeBps(0);
        vm.prank(next);
        escrow.setFeeBps(0);
        assertEq(escrow.feeBps(), 0, "new owner administers");
    }

    function test_RevertWhen_AcceptOwnershipByNonPendingOwner() public {
        address next = makeAddr("nextOwner");
        vm.prank(owner);
        escrow.transferOwnership(next);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        vm.prank(stranger);
        escrow.acceptOwnership();
        assertEq(escrow.owner(), owner, "owner unchanged");
    }

    function test_RevertWhen_TransferOwnershipByNonOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        vm.prank(stranger);
        escrow.transferOwnership(stranger);
    }

    function test_TransferOwnership_WhenToZero_CancelsPendingTransfer() public {
        address next = makeAddr("nextOwner");
        vm.startPrank(owner);
        escrow.transferOwnership(next);
        escrow.transferOwnership(address(0));
        vm.stopPrank();
        assertEq(escrow.pendingOwner(), address(0), "pending transfer cancelled");
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, next));
        vm.prank(next);
        escrow.acceptOwnership();
    }

    /*------------------------------ admin cannot touch funds ------------------------------*/

    function test_GivenOpenEscrows_OwnerAndArbiterCannotMoveFunds() public {
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAndDeliver();
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_ReleaseNotAllowed.selector, id, owner));
        vm.prank(owner);
        escrow.release(id, t);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, id, owner));
        vm.prank(owner);
        escrow.refund(id, t);
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidStatus.selector, id, IAgentEscrow.Status.Delivered)
        );
        vm.prank(arbiter);
        escrow.resolve(id, t, 10_000);
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT, "funds stay in escrow");
    }

    /*------------------------------ views ------------------------------*/

    function test_HashTerms_IsKeccakOfTermsWithLowByteCleared() public view {
        IAgentEscrow.Escrow memory t = IAgentEscrow.Escrow({
            buyer: buyer,
            seller: seller,
            amount: 123,
            deadline: 456,
            disputeWindow: 789,
            deliveredAt: 1011,
            feeBps: 12
        });
        bytes32 expected = keccak256(abi.encode(buyer, seller, uint256(123), uint40(456), uint32(789), uint40(1011), uint16(12)))
            & ~bytes32(uint256(0xff));
        assertEq(escrow.hashTerms(t), expected, "hashTerms");
        assertEq(uint256(escrow.hashTerms(t)) & 0xff, 0, "low byte clear");
        for (uint256 field; field < TERM_FIELDS; ++field) {
            assertTrue(escrow.hashTerms(_mutate(t, field)) != expected, "every field is hashed");
        }
    }
}
