// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AgentEscrow} from "../../../AgentEscrow.sol";
import {IAgentEscrow} from "../../../interfaces/IAgentEscrow.sol";
import {MockUSDC} from "../../../mocks/MockUSDC.sol";
import {Test} from "../../utils/Test.sol";
import {EscrowHandler} from "./EscrowHandler.sol";

/// @dev The handler as deployed by the invariant test. Declared in this file because Hardhat emits
/// artifacts for root files only, and the invariant fuzzer needs the target's ABI: this keeps
/// `hardhat test solidity contracts/test/escrow/invariant/EscrowInvariants.t.sol` working on its own.
contract EscrowInvariantsHandler is EscrowHandler {}

/// @dev Invariants of AgentEscrow under random sequences of moves driven by {EscrowHandler}.
/// Runs and depth come from hardhat.config.ts (INVARIANT_RUNS raises the runs: `pnpm bench:invariants`).
contract EscrowInvariantsTest is Test {
    EscrowHandler internal handler;
    AgentEscrow internal escrow;
    MockUSDC internal usdc;

    function setUp() public {
        vm.warp(1_700_000_000);
        handler = new EscrowInvariantsHandler();
        escrow = handler.escrow();
        usdc = handler.usdc();

        bytes4[] memory selectors = new bytes4[](18);
        selectors[0] = EscrowHandler.fund.selector;
        selectors[1] = EscrowHandler.fundWithAuthorization.selector;
        selectors[2] = EscrowHandler.assignSeller.selector;
        selectors[3] = EscrowHandler.deliver.selector;
        selectors[4] = EscrowHandler.release.selector;
        selectors[5] = EscrowHandler.refund.selector;
        selectors[6] = EscrowHandler.dispute.selector;
        selectors[7] = EscrowHandler.resolve.selector;
        selectors[8] = EscrowHandler.forgeTerms.selector;
        selectors[9] = EscrowHandler.releaseWithSig.selector;
        selectors[10] = EscrowHandler.warp.selector;
        selectors[11] = EscrowHandler.blacklist.selector;
        selectors[12] = EscrowHandler.unBlacklist.selector;
        selectors[13] = EscrowHandler.withdrawCredit.selector;
        // Funding twice as often keeps enough escrows open.
        selectors[14] = EscrowHandler.fund.selector;
        selectors[15] = EscrowHandler.fundWithTransfer.selector;
        selectors[16] = EscrowHandler.frontRunThenSettle.selector;
        selectors[17] = EscrowHandler.operatorActs.selector;
        targetContract(address(handler));
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
    }

    /// @dev Every call did what the rules predict: allowed moves succeeded, forbidden ones reverted.
    function invariant_EveryMoveFollowsTheRules() public view {
        assertEq(handler.ghostUnexpected(), 0, handler.ghostUnexpectedLabel());
    }

    /// @dev (a) The escrow holds exactly the open amounts plus the credits, and the credits are the
    /// sum of what each payee is owed.
    function invariant_BalanceIsOpenAmountsPlusCredits() public view {
        assertEq(
            usdc.balanceOf(address(escrow)),
            handler.ghostOpenAmounts() + escrow.totalCredits(),
            "escrow balance == open amounts + totalCredits"
        );
        uint256 credits = escrow.creditOf(handler.feeRecipient());
        for (uint256 i; i < handler.actorCount(); ++i) {
            credits += escrow.creditOf(handler.actorAt(i));
        }
        assertEq(credits, escrow.totalCredits(), "totalCredits == sum of creditOf");

        uint256 open;
        for (uint256 i; i < handler.idCount(); ++i) {
            bytes32 id = handler.idAt(i);
            (IAgentEscrow.Status status,) = escrow.escrowState(id);
            if (uint8(status) < uint8(IAgentEscrow.Status.Released)) open += handler.termsOf(id).amount;
        }
        assertEq(open, handler.ghostOpenAmounts(), "open amounts read from the escrow == ghost");
    }

    /// @dev Every escrow's stored word is its modelled status, the hash of its modelled terms and
    /// the flags of how it was funded (a bounty; an x402 payment, delegated to the operator).
    function invariant_StoredStateMatchesTheModel() public view {
        for (uint256 i; i < handler.idCount(); ++i) {
            bytes32 id = handler.idAt(i);
            (IAgentEscrow.Status status, bytes32 termsHash) = escrow.escrowState(id);
            assertEq(uint256(status), uint256(handler.statusOf(id)), "status == model");
            assertEq(termsHash, escrow.hashTerms(handler.termsOf(id)), "hash == hashTerms(model terms)");
            assertEq(escrow.isBounty(id), handler.bountyOf(id), "isBounty == model");
            assertEq(escrow.isOperatorDelegated(id), handler.delegatedOf(id), "isOperatorDelegated == model");
        }
    }

    /// @dev Each x402 authorization, (from, nonce), funded exactly one escrow: the one at
    /// escrowIdOf(from, nonce), whose buyer is `from` and which is delegated to the operator; and the
    /// token has spent the nonce. Replays, collisions with the buyer's own refs and front-runs never
    /// opened a second one.
    function invariant_EachTransferAuthorizationFundsAtMostOneEscrow() public view {
        uint256 delegated;
        for (uint256 i; i < handler.idCount(); ++i) {
            if (handler.delegatedOf(handler.idAt(i))) ++delegated;
        }
        assertEq(delegated, handler.paymentCount(), "one delegated escrow per authorization");
        for (uint256 i; i < handler.paymentCount(); ++i) {
            (address from, bytes32 nonce) = handler.paymentAt(i);
            assertEq(handler.ghostEscrowsFundedByAuthorization(from, nonce), 1, "the authorization funded one escrow");
            bytes32 id = escrow.escrowIdOf(from, nonce);
            (IAgentEscrow.Status status, bytes32 termsHash) = escrow.escrowState(id);
            assertTrue(status != IAgentEscrow.Status.None, "its escrow exists");
            assertEq(handler.termsOf(id).buyer, from, "its buyer is the signer");
            assertEq(termsHash, escrow.hashTerms(handler.termsOf(id)), "its stored terms");
            assertTrue(escrow.isOperatorDelegated(id), "delegated");
            assertTrue(usdc.authorizationState(from, nonce), "the token spent the nonce");
        }
    }

    /// @dev Every funded escrow lives at escrowIdOf(its buyer, its ref), that id is keccak256 of the
    /// ABI-encoded buyer and ref, and the word stored there hashes that escrow's own terms: an escrow
    /// funded under another buyer's ref never took or touched the other's.
    function invariant_EveryEscrowLivesAtEscrowIdOfItsBuyerAndRef() public view {
        for (uint256 i; i < handler.idCount(); ++i) {
            bytes32 id = handler.idAt(i);
            IAgentEscrow.Escrow memory terms = handler.termsOf(id);
            bytes32 ref = handler.refOf(id);
            bytes32 derived = escrow.escrowIdOf(terms.buyer, ref);
            assertEq(derived, id, "id == escrowIdOf(buyer, ref)");
            assertEq(derived, keccak256(abi.encode(terms.buyer, ref)), "escrowIdOf == keccak(buyer, ref)");
            (, bytes32 termsHash) = escrow.escrowState(derived);
            assertEq(termsHash, escrow.hashTerms(terms), "stored hash at escrowIdOf(buyer, ref) == its own terms");
        }
    }

    /// @dev (b) A terminal escrow never changes again.
    function invariant_TerminalEscrowsNeverChange() public view {
        for (uint256 i; i < handler.closedCount(); ++i) {
            bytes32 id = handler.closedAt(i);
            (IAgentEscrow.Status status, bytes32 termsHash) = escrow.escrowState(id);
            assertEq(uint256(status), uint256(handler.statusOf(id)), "terminal status kept");
            assertTrue(uint8(status) >= uint8(IAgentEscrow.Status.Released), "status is terminal");
            assertEq(termsHash, handler.ghostFinalHash(id), "terminal hash kept");
        }
    }

    /// @dev (c) Only buyers, sellers and the fee recipient receive funds, each exactly what the rules
    /// owe it (paid or credited); the arbiter, operator, owner and handler never hold tokens.
    function invariant_OnlyPayeesReceiveFunds() public view {
        for (uint256 i; i < handler.actorCount(); ++i) {
            address actor = handler.actorAt(i);
            assertEq(
                usdc.balanceOf(actor) + escrow.creditOf(actor),
                handler.ghostMintedTo(actor) - handler.ghostPaidIn(actor) + handler.ghostOwed(actor),
                "actor holds minted - paid in + owed"
            );
        }
        address feeRecipient = handler.feeRecipient();
        assertEq(
            usdc.balanceOf(feeRecipient) + escrow.creditOf(feeRecipient),
            handler.ghostOwed(feeRecipient),
            "fee recipient holds exactly the fees"
        );
        assertEq(usdc.balanceOf(handler.arbiter()), 0, "arbiter never gains");
        assertEq(usdc.balanceOf(handler.operator()), 0, "operator never gains");
        assertEq(usdc.balanceOf(handler.owner()), 0, "owner never gains");
        assertEq(usdc.balanceOf(address(handler)), 0, "handler (relayer) never gains");
        assertEq(usdc.balanceOf(address(this)), 0, "test contract never gains");
        assertEq(escrow.creditOf(handler.arbiter()), 0, "arbiter never credited");
        assertEq(escrow.creditOf(handler.operator()), 0, "operator never credited");
        assertEq(escrow.creditOf(handler.owner()), 0, "owner never credited");
    }

    /// @dev (d) Tokens are conserved: nothing is created or destroyed, and all of them sit with the
    /// actors, the fee recipient or the escrow.
    function invariant_TokensAreConserved() public view {
        assertEq(usdc.totalSupply(), handler.ghostMinted(), "supply == minted");
        uint256 held = usdc.balanceOf(address(escrow)) + usdc.balanceOf(handler.feeRecipient());
        for (uint256 i; i < handler.actorCount(); ++i) {
            held += usdc.balanceOf(handler.actorAt(i));
        }
        assertEq(held, usdc.totalSupply(), "actors + fee recipient + escrow hold the whole supply");
    }
}
