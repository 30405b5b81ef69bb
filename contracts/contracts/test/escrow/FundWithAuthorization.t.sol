// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {IERC3009} from "../../interfaces/IERC3009.sol";
import {MockUSDC} from "../../mocks/MockUSDC.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

contract FundWithAuthorizationTest is EscrowTestBase {
    /// @dev A buyer agent that holds USDC but no ETH and has never approved the escrow.
    address internal agent;
    uint256 internal agentKey;

    function setUp() public override {
        super.setUp();
        (agent, agentKey) = makeAccount("agent");
        usdc.mint(agent, START_BALANCE);
    }

    function _agentTerms(address seller_, uint40 deadline) internal view returns (IAgentEscrow.Escrow memory) {
        return IAgentEscrow.Escrow({
            buyer: agent,
            seller: seller_,
            amount: AMOUNT,
            deadline: deadline,
            disputeWindow: WINDOW,
            deliveredAt: 0,
            feeBps: FEE_BPS
        });
    }

    /*------------------------------ success ------------------------------*/

    function test_FundingNonce_IsTheHashOfIdSellerDeadlineAndWindow() public view {
        bytes32 id = keccak256("some id");
        assertEq(
            escrow.fundingNonce(id, seller, 1234, 5678),
            keccak256(abi.encode(id, seller, uint40(1234), uint32(5678))),
            "fundingNonce == keccak256(abi.encode(id, seller, deadline, window))"
        );
        assertTrue(
            escrow.fundingNonce(id, seller, 1234, 5678) != escrow.fundingNonce(id, seller2, 1234, 5678),
            "nonce depends on the seller"
        );
    }

    function test_FundingNonce_OverTheDerivedId_BindsTheBuyer() public view {
        bytes32 ref = keccak256("some ref");
        assertTrue(
            escrow.fundingNonce(escrow.escrowIdOf(agent, ref), seller, 1234, 5678)
                != escrow.fundingNonce(escrow.escrowIdOf(stranger, ref), seller, 1234, 5678),
            "same ref and terms, another buyer: another nonce"
        );
    }

    function test_GivenValidAuthorization_WhenSubmittedByRelayer_FundsEscrowAtTheBuyersDerivedId() public {
        bytes32 ref = _newRef();
        bytes32 id = _idOf(agent, ref);
        assertEq(escrow.escrowIdOf(agent, ref), id, "escrowIdOf(agent, ref)");
        uint40 deadline = _deadline();
        bytes32 nonce = escrow.fundingNonce(id, seller, deadline, WINDOW);
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Funded(id, agent, seller, ref, AMOUNT, deadline, WINDOW, FEE_BPS);
        vm.expectEmit(address(usdc));
        emit IERC3009.AuthorizationUsed(agent, nonce);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(agent, address(escrow), AMOUNT);
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);

        _assertState(id, IAgentEscrow.Status.Funded, _agentTerms(seller, deadline), "funded by authorization");
        assertEq(usdc.balanceOf(agent), START_BALANCE - AMOUNT, "agent debited without an allowance");
        assertEq(usdc.balanceOf(address(escrow)), AMOUNT, "escrow holds the amount");
        assertEq(usdc.balanceOf(relayer), 0, "relayer paid nothing and got nothing");
        assertTrue(usdc.authorizationState(agent, nonce), "authorization spent");
    }

    function test_GivenZeroSeller_FundsUnclaimedBounty() public {
        bytes32 ref = _newRef();
        bytes32 id = _idOf(agent, ref);
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, address(0), AMOUNT, deadline, WINDOW);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Funded(id, agent, address(0), ref, AMOUNT, deadline, WINDOW, FEE_BPS);
        _fundWithAuth(ref, agent, address(0), AMOUNT, deadline, WINDOW, a);
        _assertState(id, IAgentEscrow.Status.Funded, _agentTerms(address(0), deadline), "bounty by authorization");
    }

    function test_GivenFundedByAuthorization_TheEscrowRunsItsCourse() public {
        bytes32 ref = _newRef();
        bytes32 id = _idOf(agent, ref);
        uint40 deadline = _deadline();
        Auth memory first = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, first);
        IAgentEscrow.Escrow memory t = _deliver(id, _agentTerms(seller, deadline));
        vm.prank(agent);
        escrow.release(id, t);
        _assertState(id, IAgentEscrow.Status.Released, t, "released");
        assertEq(usdc.balanceOf(seller), START_BALANCE + AMOUNT - FEE, "seller paid");
    }

    /*------------------------------ the signature binds the terms ------------------------------*/

    function test_RevertWhen_SubmitterChangesSeller() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(ref, agent, stranger, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_SubmitterTurnsFixedEscrowIntoBounty() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(ref, agent, address(0), AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_SubmitterChangesDeadline() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline + 1, WINDOW, a);
    }

    function test_RevertWhen_SubmitterChangesDisputeWindow() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, 0, a);
    }

    function test_RevertWhen_SubmitterChangesRef() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        bytes32 other = _newRef();
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(other, agent, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_SubmitterChangesAmount() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(ref, agent, seller, AMOUNT + 1, deadline, WINDOW, a);
    }

    function test_RevertWhen_SubmitterChangesBuyer() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(ref, buyer, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_SignedByAnotherKey() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(strangerKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_BuyerIsZeroAddress() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, address(0), ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(ref, address(0), seller, AMOUNT, deadline, WINDOW, a);
    }

    /*------------------------------ replay and validity ------------------------------*/

    function test_RevertWhen_AuthorizationReplayedOnTheSameRef() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_AlreadyExists.selector, _idOf(agent, ref)));
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_AuthorizationReplayedForAnotherRef() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
        bytes32 other = _newRef();
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        _fundWithAuth(other, agent, seller, AMOUNT, deadline, WINDOW, a);
        assertEq(usdc.balanceOf(agent), START_BALANCE - AMOUNT, "agent paid once");
    }

    function test_RevertGiven_AuthorizationCanceledByBuyer() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        bytes32 nonce = escrow.fundingNonce(_idOf(agent, ref), seller, deadline, WINDOW);
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);

        bytes32 cancelHash = keccak256(
            abi.encode(keccak256("CancelAuthorization(address authorizer,bytes32 nonce)"), agent, nonce)
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(agentKey, keccak256(abi.encodePacked("\x19\x01", _usdcDomain(), cancelHash)));
        usdc.cancelAuthorization(agent, nonce, v, r, s);

        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationUsedOrCanceled.selector, agent, nonce));
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_AuthorizationNotYetValid() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a;
        a.validAfter = _now();
        a.validBefore = _now() + 1 hours;
        (a.v, a.r, a.s) = _signReceive(
            agentKey,
            agent,
            AMOUNT,
            a.validAfter,
            a.validBefore,
            escrow.fundingNonce(_idOf(agent, ref), seller, deadline, WINDOW)
        );
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationNotYetValid.selector, a.validAfter));
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_AuthorizationExpired() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.warp(a.validBefore);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationExpired.selector, a.validBefore));
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertGiven_BuyerBlacklisted() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        _blacklist(agent);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, agent));
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_BuyerBalanceTooLow() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        uint256 amount = START_BALANCE + 1;
        Auth memory a = _authorize(agentKey, agent, ref, seller, amount, deadline, WINDOW);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, agent, START_BALANCE, amount)
        );
        _fundWithAuth(ref, agent, seller, amount, deadline, WINDOW, a);
    }

    /// @dev Anyone who sees a pending authorization (or the API's pending ref) can fund the same ref
    /// first, with itself as buyer: that opens its own escrow under another id and leaves the buyer's
    /// id free, so the authorization goes through.
    function test_GivenRefFundedFirstByStranger_WhenAuthorizationSubmitted_FundsTheBuyersEscrow() public {
        bytes32 ref = _newRef();
        bytes32 id = _idOf(agent, ref);
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.prank(stranger);
        escrow.fund(ref, seller, 1, deadline, WINDOW);

        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Funded(id, agent, seller, ref, AMOUNT, deadline, WINDOW, FEE_BPS);
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);

        _assertState(id, IAgentEscrow.Status.Funded, _agentTerms(seller, deadline), "the agent's escrow");
        IAgentEscrow.Escrow memory squat = _copy(_agentTerms(seller, deadline));
        squat.buyer = stranger;
        squat.amount = 1;
        _assertState(_idOf(stranger, ref), IAgentEscrow.Status.Funded, squat, "the stranger's escrow, apart");
        assertTrue(usdc.authorizationState(agent, escrow.fundingNonce(id, seller, deadline, WINDOW)), "spent");
        assertEq(usdc.balanceOf(agent), START_BALANCE - AMOUNT, "agent paid its own escrow");
    }

    /// @dev The same squat through the signed path: the stranger relays an authorization of its own
    /// for the same ref.
    function test_GivenRefFundedFirstByStrangersAuthorization_WhenAuthorizationSubmitted_FundsTheBuyersEscrow()
        public
    {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory mine = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        Auth memory theirs = _authorize(strangerKey, stranger, ref, seller, AMOUNT, deadline, WINDOW);
        _fundWithAuth(ref, stranger, seller, AMOUNT, deadline, WINDOW, theirs);

        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, mine);
        _assertState(_idOf(agent, ref), IAgentEscrow.Status.Funded, _agentTerms(seller, deadline), "agent's");
        IAgentEscrow.Escrow memory other = _agentTerms(seller, deadline);
        other.buyer = stranger;
        _assertState(_idOf(stranger, ref), IAgentEscrow.Status.Funded, other, "stranger's");
        assertEq(usdc.balanceOf(address(escrow)), 2 * AMOUNT, "escrow holds both");
    }

    /// @dev Only the buyer itself can occupy its id: here it funded the ref with `fund` already. The
    /// authorization stays unused and the buyer's funds do not move.
    function test_RevertGiven_BuyerFundedTheRefAlready_LeavesAuthorizationUnused() public {
        bytes32 ref = _newRef();
        bytes32 id = _idOf(agent, ref);
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.startPrank(agent);
        usdc.approve(address(escrow), 1);
        escrow.fund(ref, seller2, 1, deadline, WINDOW);
        vm.stopPrank();

        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_AlreadyExists.selector, id));
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
        assertFalse(
            usdc.authorizationState(agent, escrow.fundingNonce(id, seller, deadline, WINDOW)),
            "authorization still unused"
        );
        assertEq(usdc.balanceOf(agent), START_BALANCE - 1, "agent paid only its first escrow");
    }

    /*------------------------------ the rules of fund ------------------------------*/

    function test_RevertWhen_AmountZero() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, 0, deadline, WINDOW);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidAmount.selector, 0));
        _fundWithAuth(ref, agent, seller, 0, deadline, WINDOW, a);
    }

    function test_RevertWhen_AmountAboveUint128Max() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, MAX_AMOUNT + 1, deadline, WINDOW);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidAmount.selector, MAX_AMOUNT + 1));
        _fundWithAuth(ref, agent, seller, MAX_AMOUNT + 1, deadline, WINDOW, a);
    }

    function test_RevertWhen_SellerIsBuyer() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, agent, AMOUNT, deadline, WINDOW);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSeller.selector, agent));
        _fundWithAuth(ref, agent, agent, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_DeadlineIsNow() public {
        bytes32 ref = _newRef();
        uint40 deadline = uint40(_now());
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, deadline));
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_DeadlineBeyondMaxDuration() public {
        bytes32 ref = _newRef();
        uint40 deadline = uint40(_now() + MAX_DURATION + 1);
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDeadline.selector, deadline));
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, a);
    }

    function test_RevertWhen_DisputeWindowAboveMax() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory a = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, MAX_DISPUTE_WINDOW + 1);
        vm.expectRevert(
            abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidDisputeWindow.selector, MAX_DISPUTE_WINDOW + 1)
        );
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, MAX_DISPUTE_WINDOW + 1, a);
    }

    function test_RevertGiven_BuyerReusesARefOfItsAuthorizedEscrow() public {
        bytes32 ref = _newRef();
        uint40 deadline = _deadline();
        Auth memory first = _authorize(agentKey, agent, ref, seller, AMOUNT, deadline, WINDOW);
        _fundWithAuth(ref, agent, seller, AMOUNT, deadline, WINDOW, first);
        // Other terms, signed afresh: the id is still taken by the agent's first escrow.
        Auth memory a = _authorize(agentKey, agent, ref, seller2, 1, deadline, 0);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_AlreadyExists.selector, _idOf(agent, ref)));
        _fundWithAuth(ref, agent, seller2, 1, deadline, 0, a);
    }
}
