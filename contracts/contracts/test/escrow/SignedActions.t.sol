// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {AgentEscrow} from "../../AgentEscrow.sol";
import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {EscrowTestBase} from "./EscrowTestBase.sol";

/// @dev A smart-contract wallet that accepts ERC-1271 signatures made by its owner key.
contract ERC1271WalletMock {
    address public immutable signer;

    constructor(address signer_) {
        signer = signer_;
    }

    function approve(IERC20 token, address spender) external {
        token.approve(spender, type(uint256).max);
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(hash, v, r, s) == signer ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

/// @dev Every `*WithSig` form, through one table: each action is set up in a state where its signer
/// may act, then signed, tampered with, replayed, cancelled, expired, or moved to another domain.
contract SignedActionsTest is EscrowTestBase {
    enum Action {
        AssignSeller,
        Deliver,
        Release,
        Refund,
        Dispute
    }

    struct Case {
        Action action;
        bytes32 id;
        IAgentEscrow.Escrow terms;
        address signer;
        uint256 key;
        uint256 nonce;
        uint256 sigDeadline;
        // AssignSeller arguments
        address newSeller;
        uint40 newDeadline;
        // Deliver / Dispute argument
        bytes32 data;
    }

    uint256 internal constant NONCE = 42;

    /*------------------------------ table ------------------------------*/

    /// @dev An escrow where `action` is allowed for its natural signer (the buyer, or the seller for
    /// Deliver), signed with nonce NONCE, valid for an hour.
    function _case(Action action) internal returns (Case memory c) {
        c.action = action;
        c.nonce = NONCE;
        c.sigDeadline = _now() + 1 hours;
        c.signer = buyer;
        c.key = buyerKey;
        if (action == Action.AssignSeller) {
            (c.id, c.terms) = _fundBounty();
            c.newSeller = seller;
            c.newDeadline = _deadline();
        } else if (action == Action.Deliver) {
            (c.id, c.terms) = _fund();
            c.signer = seller;
            c.key = sellerKey;
            c.data = DELIVERABLE;
        } else if (action == Action.Release) {
            (c.id, c.terms) = _fundAndDeliver();
        } else if (action == Action.Refund) {
            (c.id, c.terms) = _fund();
        } else {
            (c.id, c.terms) = _fund();
            c.data = REASON;
        }
    }

    function _structHash(Case memory c) internal pure returns (bytes32) {
        if (c.action == Action.AssignSeller) {
            return _assignSellerStruct(c.id, c.newSeller, c.newDeadline, c.nonce, c.sigDeadline);
        } else if (c.action == Action.Deliver) {
            return _deliverStruct(c.id, c.data, c.nonce, c.sigDeadline);
        } else if (c.action == Action.Release) {
            return _releaseStruct(c.id, c.nonce, c.sigDeadline);
        } else if (c.action == Action.Refund) {
            return _refundStruct(c.id, c.nonce, c.sigDeadline);
        } else {
            return _disputeStruct(c.id, c.data, c.nonce, c.sigDeadline);
        }
    }

    function _sign(Case memory c) internal view returns (bytes memory) {
        return _signTyped(c.key, _escrowDomain(), _structHash(c));
    }

    function _submit(Case memory c, bytes memory signature) internal {
        vm.prank(relayer);
        if (c.action == Action.AssignSeller) {
            escrow.assignSellerWithSig(
                c.id, c.terms, c.newSeller, c.newDeadline, c.signer, c.nonce, c.sigDeadline, signature
            );
        } else if (c.action == Action.Deliver) {
            escrow.deliverWithSig(c.id, c.terms, c.data, c.signer, c.nonce, c.sigDeadline, signature);
        } else if (c.action == Action.Release) {
            escrow.releaseWithSig(c.id, c.terms, c.signer, c.nonce, c.sigDeadline, signature);
        } else if (c.action == Action.Refund) {
            escrow.refundWithSig(c.id, c.terms, c.signer, c.nonce, c.sigDeadline, signature);
        } else {
            escrow.disputeWithSig(c.id, c.terms, c.data, c.signer, c.nonce, c.sigDeadline, signature);
        }
    }

    function _expectEvent(Case memory c) internal {
        vm.expectEmit(address(escrow));
        if (c.action == Action.AssignSeller) {
            emit IAgentEscrow.SellerAssigned(c.id, c.newSeller, c.newDeadline);
        } else if (c.action == Action.Deliver) {
            emit IAgentEscrow.Delivered(c.id, c.data);
        } else if (c.action == Action.Release) {
            emit IAgentEscrow.Released(c.id, c.signer, AMOUNT - FEE, FEE);
        } else if (c.action == Action.Refund) {
            emit IAgentEscrow.Refunded(c.id, c.signer, AMOUNT);
        } else {
            emit IAgentEscrow.Disputed(c.id, c.signer, c.data);
        }
    }

    /// @dev The state `c` leads to once applied now.
    function _assertApplied(Case memory c) internal view {
        IAgentEscrow.Escrow memory next = _copy(c.terms);
        IAgentEscrow.Status status;
        if (c.action == Action.AssignSeller) {
            next.seller = c.newSeller;
            next.deadline = c.newDeadline;
            status = IAgentEscrow.Status.Funded;
        } else if (c.action == Action.Deliver) {
            next.deliveredAt = uint40(_now());
            status = IAgentEscrow.Status.Delivered;
        } else if (c.action == Action.Release) {
            status = IAgentEscrow.Status.Released;
        } else if (c.action == Action.Refund) {
            status = IAgentEscrow.Status.Refunded;
        } else {
            status = IAgentEscrow.Status.Disputed;
        }
        _assertState(c.id, status, next, "applied");
        assertTrue(escrow.isNonceUsed(c.signer, c.nonce), "nonce spent");
        assertEq(usdc.balanceOf(relayer), 0, "relayer neither pays nor earns");
    }

    /// @dev The escrow as `_case` left it: nothing happened.
    function _assertUntouched(Case memory c) internal view {
        IAgentEscrow.Status status =
            c.action == Action.Release ? IAgentEscrow.Status.Delivered : IAgentEscrow.Status.Funded;
        _assertState(c.id, status, c.terms, "untouched");
    }

    /// @dev The error `stranger` gets when it signs `c` for itself.
    function _wrongPartyError(Case memory c) internal view returns (bytes memory) {
        if (c.action == Action.AssignSeller) {
            return abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotBuyerOrOperator.selector, c.id, stranger);
        } else if (c.action == Action.Deliver) {
            return abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotSeller.selector, c.id, stranger);
        } else if (c.action == Action.Release) {
            return abi.encodeWithSelector(IAgentEscrow.Escrow_ReleaseNotAllowed.selector, c.id, stranger);
        } else if (c.action == Action.Refund) {
            return abi.encodeWithSelector(IAgentEscrow.Escrow_RefundNotAllowed.selector, c.id, stranger);
        } else {
            return abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotParty.selector, c.id, stranger);
        }
    }

    /*------------------------------ checks, per action ------------------------------*/

    function _checkValid(Action action) internal {
        Case memory c = _case(action);
        bytes memory signature = _sign(c);
        assertFalse(escrow.isNonceUsed(c.signer, c.nonce), "nonce fresh");
        _expectEvent(c);
        _submit(c, signature);
        _assertApplied(c);
    }

    function _checkAtSigDeadline(Action action) internal {
        Case memory c = _case(action);
        c.sigDeadline = _now() + 10 minutes;
        bytes memory signature = _sign(c);
        vm.warp(c.sigDeadline);
        _submit(c, signature);
        _assertApplied(c);
    }

    function _checkExpired(Action action) internal {
        Case memory c = _case(action);
        c.sigDeadline = _now() + 10 minutes;
        bytes memory signature = _sign(c);
        vm.warp(c.sigDeadline + 1);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_SignatureExpired.selector, c.sigDeadline));
        _submit(c, signature);
        _assertUntouched(c);
        assertFalse(escrow.isNonceUsed(c.signer, c.nonce), "nonce not spent");
    }

    function _checkReplayed(Action action) internal {
        Case memory c = _case(action);
        bytes memory signature = _sign(c);
        _submit(c, signature);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NonceUsed.selector, c.signer, c.nonce));
        _submit(c, signature);
    }

    /// @dev A nonce spent on one escrow cannot be used for another, even with a fresh signature.
    function _checkNonceSpentElsewhere(Action action) internal {
        Case memory first = _case(action);
        _submit(first, _sign(first));
        Case memory second = _case(action);
        bytes memory signature = _sign(second);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NonceUsed.selector, second.signer, NONCE));
        _submit(second, signature);
        _assertUntouched(second);
    }

    function _checkCancelled(Action action) internal {
        Case memory c = _case(action);
        bytes memory signature = _sign(c);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.NoncesInvalidated(c.signer, c.nonce >> 8, 1 << (c.nonce & 0xff));
        vm.prank(c.signer);
        escrow.invalidateNonces(c.nonce >> 8, 1 << (c.nonce & 0xff));
        assertTrue(escrow.isNonceUsed(c.signer, c.nonce), "nonce cancelled");

        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_NonceUsed.selector, c.signer, c.nonce));
        _submit(c, signature);
        _assertUntouched(c);
    }

    /// @dev Signed by another key than the named signer's.
    function _checkWrongKey(Action action) internal {
        Case memory c = _case(action);
        c.key = strangerKey;
        bytes memory signature = _sign(c);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, c.signer));
        _submit(c, signature);
        _assertUntouched(c);
    }

    /// @dev A valid signature of a party that may not take this move.
    function _checkWrongParty(Action action) internal {
        Case memory c = _case(action);
        c.signer = stranger;
        c.key = strangerKey;
        bytes memory signature = _sign(c);
        vm.expectRevert(_wrongPartyError(c));
        _submit(c, signature);
        _assertUntouched(c);
        assertFalse(escrow.isNonceUsed(stranger, c.nonce), "the failed move spends no nonce");
    }

    function _checkOtherChainDomain(Action action) internal {
        Case memory c = _case(action);
        bytes memory signature = _signTyped(c.key, _escrowDomain(address(escrow), block.chainid + 1), _structHash(c));
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, c.signer));
        _submit(c, signature);
        _assertUntouched(c);
    }

    /// @dev Signed here, submitted after a fork onto another chain id: the domain follows the chain.
    function _checkChainIdChanged(Action action) internal {
        Case memory c = _case(action);
        bytes memory signature = _sign(c);
        vm.chainId(8453);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, c.signer));
        _submit(c, signature);
        _assertUntouched(c);
    }

    function _checkOtherContractDomain(Action action) internal {
        AgentEscrow other =
            new AgentEscrow(address(usdc), MAX_FEE_BPS, FEE_BPS, feeRecipient, arbiter, operator, owner);
        assertEq(other.DOMAIN_SEPARATOR(), _escrowDomain(address(other), block.chainid), "other domain");
        Case memory c = _case(action);
        bytes memory signature = _signTyped(c.key, other.DOMAIN_SEPARATOR(), _structHash(c));
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, c.signer));
        _submit(c, signature);
        _assertUntouched(c);
    }

    /// @dev Another action's type hash over the same fields.
    function _checkOtherTypeHash(Action action) internal {
        Case memory c = _case(action);
        bytes32 structHash = keccak256(abi.encode(keccak256("Other(bytes32 escrowId)"), c.id, c.nonce, c.sigDeadline));
        if (action == Action.Release) structHash = _refundStruct(c.id, c.nonce, c.sigDeadline);
        if (action == Action.Refund) structHash = _releaseStruct(c.id, c.nonce, c.sigDeadline);
        bytes memory signature = _signTyped(c.key, _escrowDomain(), structHash);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, c.signer));
        _submit(c, signature);
        _assertUntouched(c);
    }

    function _checkMalformed(Action action) internal {
        Case memory c = _case(action);
        bytes memory good = _sign(c);
        (bytes32 r, bytes32 s) = abi.decode(good, (bytes32, bytes32));
        uint8 v = uint8(good[64]);
        // secp256k1 order: (r, n - s, v ^ 1) recovers the same key but is the malleable twin.
        uint256 n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;
        bytes32 vs = bytes32(uint256(s) | (uint256(v - 27) << 255));

        bytes[] memory bad = new bytes[](7);
        bad[0] = "";
        bad[1] = abi.encodePacked(r, s); // 64 bytes, no v
        bad[2] = abi.encodePacked(r, vs); // EIP-2098 compact form
        bad[3] = abi.encodePacked(r, s, v, uint8(0)); // 66 bytes
        bad[4] = abi.encodePacked(r, s, uint8(0)); // v = 0
        bad[5] = abi.encodePacked(r, bytes32(n - uint256(s)), v == 27 ? uint8(28) : uint8(27)); // high s
        bad[6] = abi.encodePacked(bytes32(0), s, v); // r = 0
        for (uint256 i; i < bad.length; ++i) {
            vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, c.signer));
            _submit(c, bad[i]);
        }
        _assertUntouched(c);
        _submit(c, good);
        _assertApplied(c);
    }

    /// @dev The relayer changes the signed argument (the seller, the deliverable, the reason) or
    /// points a release/refund signature at another escrow.
    function _checkTampered(Action action) internal {
        Case memory c = _case(action);
        bytes memory signature = _sign(c);
        if (action == Action.AssignSeller) {
            c.newSeller = stranger;
        } else if (action == Action.Deliver || action == Action.Dispute) {
            c.data = keccak256("something else");
        } else {
            if (action == Action.Release) (c.id, c.terms) = _fundAndDeliver();
            else (c.id, c.terms) = _fund();
        }
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, c.signer));
        _submit(c, signature);
        _assertUntouched(c);
    }

    /*------------------------------ assignSellerWithSig ------------------------------*/

    function test_AssignSellerWithSig_GivenBuyerSignature_AssignsSeller() public {
        _checkValid(Action.AssignSeller);
    }

    function test_AssignSellerWithSig_WhenSubmittedAtSigDeadline_AssignsSeller() public {
        _checkAtSigDeadline(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_SignatureExpired() public {
        _checkExpired(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_NonceReplayed() public {
        _checkReplayed(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_NonceSpentOnAnotherEscrow() public {
        _checkNonceSpentElsewhere(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_NonceCancelled() public {
        _checkCancelled(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_SignedByAnotherKey() public {
        _checkWrongKey(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_SignerNotBuyerOrOperator() public {
        _checkWrongParty(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_SignedForAnotherChain() public {
        _checkOtherChainDomain(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_ChainIdChanged() public {
        _checkChainIdChanged(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_SignedForAnotherEscrowContract() public {
        _checkOtherContractDomain(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_SignedWithAnotherTypeHash() public {
        _checkOtherTypeHash(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_SignatureMalformed() public {
        _checkMalformed(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_SellerChangedBySubmitter() public {
        _checkTampered(Action.AssignSeller);
    }

    function test_RevertWhen_AssignSellerWithSig_DeadlineChangedBySubmitter() public {
        Case memory c = _case(Action.AssignSeller);
        bytes memory signature = _sign(c);
        c.newDeadline += 1;
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, buyer));
        _submit(c, signature);
    }

    function test_AssignSellerWithSig_GivenOperatorSignature_AssignsSeller() public {
        (address op, uint256 opKey) = makeAccount("signing-operator");
        vm.prank(owner);
        escrow.setOperator(op);
        Case memory c = _case(Action.AssignSeller);
        c.signer = op;
        c.key = opKey;
        _expectEvent(c);
        _submit(c, _sign(c));
        _assertApplied(c);
    }

    /*------------------------------ deliverWithSig ------------------------------*/

    function test_DeliverWithSig_GivenSellerSignature_Delivers() public {
        _checkValid(Action.Deliver);
    }

    function test_DeliverWithSig_WhenSubmittedAtSigDeadline_Delivers() public {
        _checkAtSigDeadline(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_SignatureExpired() public {
        _checkExpired(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_NonceReplayed() public {
        _checkReplayed(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_NonceSpentOnAnotherEscrow() public {
        _checkNonceSpentElsewhere(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_NonceCancelled() public {
        _checkCancelled(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_SignedByAnotherKey() public {
        _checkWrongKey(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_SignerNotSeller() public {
        _checkWrongParty(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_SignerIsBuyer() public {
        Case memory c = _case(Action.Deliver);
        c.signer = buyer;
        c.key = buyerKey;
        bytes memory signature = _sign(c);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotSeller.selector, c.id, buyer));
        _submit(c, signature);
    }

    function test_RevertWhen_DeliverWithSig_SignedForAnotherChain() public {
        _checkOtherChainDomain(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_ChainIdChanged() public {
        _checkChainIdChanged(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_SignedForAnotherEscrowContract() public {
        _checkOtherContractDomain(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_SignedWithAnotherTypeHash() public {
        _checkOtherTypeHash(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_SignatureMalformed() public {
        _checkMalformed(Action.Deliver);
    }

    function test_RevertWhen_DeliverWithSig_DeliverableChangedBySubmitter() public {
        _checkTampered(Action.Deliver);
    }

    /*------------------------------ releaseWithSig ------------------------------*/

    function test_ReleaseWithSig_GivenBuyerSignature_PaysSeller() public {
        Case memory c = _case(Action.Release);
        Balances memory before = _balances(c.terms);
        _checkValidFrom(c);
        _assertPaid(before, c.terms, 0, AMOUNT - FEE, FEE, "released by signature");
    }

    function _checkValidFrom(Case memory c) internal {
        bytes memory signature = _sign(c);
        _expectEvent(c);
        _submit(c, signature);
        _assertApplied(c);
    }

    function test_ReleaseWithSig_WhenSubmittedAtSigDeadline_PaysSeller() public {
        _checkAtSigDeadline(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_SignatureExpired() public {
        _checkExpired(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_NonceReplayed() public {
        _checkReplayed(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_NonceSpentOnAnotherEscrow() public {
        _checkNonceSpentElsewhere(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_NonceCancelled() public {
        _checkCancelled(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_SignedByAnotherKey() public {
        _checkWrongKey(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_SignerNotBuyerInWindow() public {
        _checkWrongParty(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_SignerIsSellerInWindow() public {
        Case memory c = _case(Action.Release);
        c.signer = seller;
        c.key = sellerKey;
        bytes memory signature = _sign(c);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_ReleaseNotAllowed.selector, c.id, seller));
        _submit(c, signature);
    }

    function test_ReleaseWithSig_GivenWindowElapsed_AnySignerReleases() public {
        Case memory c = _case(Action.Release);
        c.signer = stranger;
        c.key = strangerKey;
        c.sigDeadline = uint256(c.terms.deliveredAt) + WINDOW;
        vm.warp(c.sigDeadline);
        _checkValidFrom(c);
    }

    function test_RevertWhen_ReleaseWithSig_SignedForAnotherChain() public {
        _checkOtherChainDomain(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_ChainIdChanged() public {
        _checkChainIdChanged(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_SignedForAnotherEscrowContract() public {
        _checkOtherContractDomain(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_RefundSignatureSubmitted() public {
        _checkOtherTypeHash(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_SignatureMalformed() public {
        _checkMalformed(Action.Release);
    }

    function test_RevertWhen_ReleaseWithSig_PointedAtAnotherEscrow() public {
        _checkTampered(Action.Release);
    }

    /*------------------------------ refundWithSig ------------------------------*/

    function test_RefundWithSig_GivenBuyerSignature_RefundsBuyer() public {
        Case memory c = _case(Action.Refund);
        Balances memory before = _balances(c.terms);
        _checkValidFrom(c);
        _assertPaid(before, c.terms, AMOUNT, 0, 0, "refunded by signature");
    }

    function test_RefundWithSig_GivenSellerSignature_RefundsBuyer() public {
        Case memory c = _case(Action.Refund);
        c.signer = seller;
        c.key = sellerKey;
        Balances memory before = _balances(c.terms);
        _checkValidFrom(c);
        _assertPaid(before, c.terms, AMOUNT, 0, 0, "refunded by the seller's signature");
    }

    function test_RefundWithSig_WhenSubmittedAtSigDeadline_RefundsBuyer() public {
        _checkAtSigDeadline(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_SignatureExpired() public {
        _checkExpired(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_NonceReplayed() public {
        _checkReplayed(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_NonceSpentOnAnotherEscrow() public {
        _checkNonceSpentElsewhere(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_NonceCancelled() public {
        _checkCancelled(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_SignedByAnotherKey() public {
        _checkWrongKey(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_SignerNotPartyBeforeDeadline() public {
        _checkWrongParty(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_SignedForAnotherChain() public {
        _checkOtherChainDomain(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_ChainIdChanged() public {
        _checkChainIdChanged(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_SignedForAnotherEscrowContract() public {
        _checkOtherContractDomain(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_ReleaseSignatureSubmitted() public {
        _checkOtherTypeHash(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_SignatureMalformed() public {
        _checkMalformed(Action.Refund);
    }

    function test_RevertWhen_RefundWithSig_PointedAtAnotherEscrow() public {
        _checkTampered(Action.Refund);
    }

    /*------------------------------ disputeWithSig ------------------------------*/

    function test_DisputeWithSig_GivenBuyerSignature_Disputes() public {
        _checkValid(Action.Dispute);
    }

    function test_DisputeWithSig_GivenSellerSignature_Disputes() public {
        Case memory c = _case(Action.Dispute);
        c.signer = seller;
        c.key = sellerKey;
        _checkValidFrom(c);
    }

    function test_DisputeWithSig_WhenSubmittedAtSigDeadline_Disputes() public {
        _checkAtSigDeadline(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_SignatureExpired() public {
        _checkExpired(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_NonceReplayed() public {
        _checkReplayed(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_NonceSpentOnAnotherEscrow() public {
        _checkNonceSpentElsewhere(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_NonceCancelled() public {
        _checkCancelled(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_SignedByAnotherKey() public {
        _checkWrongKey(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_SignerNotParty() public {
        _checkWrongParty(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_SignedForAnotherChain() public {
        _checkOtherChainDomain(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_ChainIdChanged() public {
        _checkChainIdChanged(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_SignedForAnotherEscrowContract() public {
        _checkOtherContractDomain(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_SignedWithAnotherTypeHash() public {
        _checkOtherTypeHash(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_SignatureMalformed() public {
        _checkMalformed(Action.Dispute);
    }

    function test_RevertWhen_DisputeWithSig_ReasonChangedBySubmitter() public {
        _checkTampered(Action.Dispute);
    }

    /*------------------------------ nonces ------------------------------*/

    function test_InvalidateNonces_SetsExactlyTheMaskBits() public {
        uint256 mask = (1 << 0) | (1 << 7) | (1 << 255);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.NoncesInvalidated(buyer, 3, mask);
        vm.prank(buyer);
        escrow.invalidateNonces(3, mask);

        assertTrue(escrow.isNonceUsed(buyer, 3 * 256 + 0), "bit 0 of word 3");
        assertTrue(escrow.isNonceUsed(buyer, 3 * 256 + 7), "bit 7 of word 3");
        assertTrue(escrow.isNonceUsed(buyer, 3 * 256 + 255), "bit 255 of word 3");
        assertFalse(escrow.isNonceUsed(buyer, 3 * 256 + 1), "bit 1 of word 3 untouched");
        assertFalse(escrow.isNonceUsed(buyer, 7), "bit 7 of word 0 untouched");
        assertFalse(escrow.isNonceUsed(seller, 3 * 256 + 7), "other signers untouched");
    }

    function test_InvalidateNonces_IsCumulative() public {
        vm.startPrank(buyer);
        escrow.invalidateNonces(0, 1 << 1);
        escrow.invalidateNonces(0, 1 << 2);
        escrow.invalidateNonces(0, 0);
        vm.stopPrank();
        assertTrue(escrow.isNonceUsed(buyer, 1), "first cancellation kept");
        assertTrue(escrow.isNonceUsed(buyer, 2), "second cancellation");
        assertFalse(escrow.isNonceUsed(buyer, 0), "bit 0 never set");
    }

    function test_GivenHugeNonce_WhenUsed_MarksItsOwnWordOnly() public {
        Case memory c = _case(Action.Dispute);
        c.nonce = (uint256(1) << 200) + 300; // word (2^200 + 300) >> 8, bit 44
        _submit(c, _sign(c));
        assertTrue(escrow.isNonceUsed(buyer, c.nonce), "huge nonce spent");
        assertFalse(escrow.isNonceUsed(buyer, 300), "low nonce with the same bits untouched");
        assertFalse(escrow.isNonceUsed(buyer, c.nonce + 1), "neighbour untouched");
    }

    function test_GivenNonceUsedByBuyer_SellerMayUseTheSameNonce() public {
        Case memory c = _case(Action.Dispute);
        _submit(c, _sign(c));
        Case memory d = _case(Action.Deliver);
        _submit(d, _sign(d));
        assertTrue(escrow.isNonceUsed(buyer, NONCE), "buyer's nonce");
        assertTrue(escrow.isNonceUsed(seller, NONCE), "seller's nonce, independent");
    }

    function test_RevertWhen_NamedSignerIsZeroAddress() public {
        Case memory c = _case(Action.Refund);
        c.signer = address(0);
        bytes memory signature = abi.encodePacked(bytes32(uint256(1)), bytes32(uint256(2)), uint8(27));
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, address(0)));
        _submit(c, signature);
    }

    /*------------------------------ ERC-1271 signers ------------------------------*/

    function test_GivenSmartWalletBuyer_WhenOwnerKeySigns_ReleasesThroughERC1271() public {
        ERC1271WalletMock wallet = new ERC1271WalletMock(stranger);
        usdc.mint(address(wallet), AMOUNT);
        wallet.approve(usdc, address(escrow));
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(address(wallet), seller, AMOUNT, _deadline(), WINDOW);

        uint256 sigDeadline = _now() + 1 hours;
        bytes memory signature = _signRelease(strangerKey, id, 1, sigDeadline);
        vm.expectEmit(address(escrow));
        emit IAgentEscrow.Released(id, address(wallet), AMOUNT - FEE, FEE);
        vm.prank(relayer);
        escrow.releaseWithSig(id, t, address(wallet), 1, sigDeadline, signature);
        _assertState(id, IAgentEscrow.Status.Released, t, "released by the wallet");
        assertTrue(escrow.isNonceUsed(address(wallet), 1), "wallet nonce spent");
    }

    function test_RevertGiven_SmartWalletBuyer_WhenWalletRejectsSignature() public {
        ERC1271WalletMock wallet = new ERC1271WalletMock(stranger);
        usdc.mint(address(wallet), AMOUNT);
        wallet.approve(usdc, address(escrow));
        (bytes32 id, IAgentEscrow.Escrow memory t) = _fundAs(address(wallet), seller, AMOUNT, _deadline(), WINDOW);

        uint256 sigDeadline = _now() + 1 hours;
        bytes memory signature = _signRelease(buyerKey, id, 1, sigDeadline);
        vm.expectRevert(abi.encodeWithSelector(IAgentEscrow.Escrow_InvalidSignature.selector, address(wallet)));
        vm.prank(relayer);
        escrow.releaseWithSig(id, t, address(wallet), 1, sigDeadline, signature);
    }

    /*------------------------------ domain ------------------------------*/

    function test_DomainSeparator_IsAgentEscrowVersion1OnThisChainAndContract() public view {
        assertEq(escrow.DOMAIN_SEPARATOR(), _escrowDomain(), "DOMAIN_SEPARATOR");
        (, string memory name, string memory version, uint256 chainId, address verifyingContract,,) =
            escrow.eip712Domain();
        assertEq(keccak256(bytes(name)), keccak256("AgentEscrow"), "name");
        assertEq(keccak256(bytes(version)), keccak256("1"), "version");
        assertEq(chainId, block.chainid, "chain id");
        assertEq(verifyingContract, address(escrow), "verifying contract");
    }

    function test_TypeHashes_MatchTheirTypeStrings() public view {
        assertEq(escrow.ASSIGN_SELLER_TYPEHASH(), ASSIGN_SELLER_TYPEHASH, "AssignSeller");
        assertEq(escrow.DELIVER_TYPEHASH(), DELIVER_TYPEHASH, "Deliver");
        assertEq(escrow.RELEASE_TYPEHASH(), RELEASE_TYPEHASH, "Release");
        assertEq(escrow.REFUND_TYPEHASH(), REFUND_TYPEHASH, "Refund");
        assertEq(escrow.DISPUTE_TYPEHASH(), DISPUTE_TYPEHASH, "Dispute");
    }
}
