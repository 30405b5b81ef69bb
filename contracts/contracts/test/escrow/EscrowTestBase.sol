// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AgentEscrow} from "../../AgentEscrow.sol";
import {IAgentEscrow} from "../../interfaces/IAgentEscrow.sol";
import {MockUSDC} from "../../mocks/MockUSDC.sol";
import {Test} from "../utils/Test.sol";

/// @dev Shared fixture of the AgentEscrow tests: deploys MockUSDC and AgentEscrow, makes labelled
/// actors with private keys, and offers helpers to fund, deliver, dispute and sign. Every EIP-712
/// digest is rebuilt here from literal type strings, independently of the contract's constants.
///
/// Tests read the clock with {_now} (the `getBlockTimestamp` cheatcode) rather than
/// `block.timestamp`: the optimizer may reuse a `block.timestamp` read across a `vm.warp` in the
/// same function (it did under the IR pipeline).
abstract contract EscrowTestBase is Test {
    /*------------------------------ constants ------------------------------*/

    uint16 internal constant MAX_FEE_BPS = 1_000;
    uint16 internal constant FEE_BPS = 100;
    uint256 internal constant BPS = 10_000;

    uint256 internal constant NOW = 1_700_000_000;
    uint256 internal constant START_BALANCE = 1_000_000e6;
    uint256 internal constant AMOUNT = 100e6;
    /// @dev 1% of AMOUNT.
    uint256 internal constant FEE = 1e6;

    uint40 internal constant DURATION = 7 days;
    uint32 internal constant WINDOW = 3 days;
    uint40 internal constant MAX_DURATION = 365 days;
    uint32 internal constant MAX_DISPUTE_WINDOW = 30 days;
    uint256 internal constant MAX_AMOUNT = type(uint128).max;

    bytes32 internal constant DELIVERABLE = keccak256("ipfs://deliverable-v1");
    bytes32 internal constant REASON = keccak256("late and incomplete");
    bytes32 internal constant UNKNOWN_ID = keccak256("no such escrow");

    uint256 internal constant TERM_FIELDS = 7;

    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant ASSIGN_SELLER_TYPEHASH = keccak256(
        "AssignSeller(bytes32 escrowId,address seller,uint40 deadline,uint256 nonce,uint256 sigDeadline)"
    );
    bytes32 internal constant DELIVER_TYPEHASH =
        keccak256("Deliver(bytes32 escrowId,bytes32 deliverableHash,uint256 nonce,uint256 sigDeadline)");
    bytes32 internal constant RELEASE_TYPEHASH = keccak256("Release(bytes32 escrowId,uint256 nonce,uint256 sigDeadline)");
    bytes32 internal constant REFUND_TYPEHASH = keccak256("Refund(bytes32 escrowId,uint256 nonce,uint256 sigDeadline)");
    bytes32 internal constant DISPUTE_TYPEHASH =
        keccak256("Dispute(bytes32 escrowId,bytes32 reasonHash,uint256 nonce,uint256 sigDeadline)");
    bytes32 internal constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 internal constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 internal constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");
    /// @dev An x402 client signs `validAfter = now - 600` and `validBefore = now + maxTimeoutSeconds`.
    uint256 internal constant X402_VALID_AFTER_LAG = 600;
    uint256 internal constant X402_TIMEOUT = 300;

    /*------------------------------ fixture ------------------------------*/

    MockUSDC internal usdc;
    AgentEscrow internal escrow;

    address internal owner;
    address internal usdcOwner; // MockUSDC owner, hence its blacklister
    address internal feeRecipient;
    address internal arbiter;
    address internal operator;
    address internal relayer;

    address internal buyer;
    uint256 internal buyerKey;
    address internal seller;
    uint256 internal sellerKey;
    address internal seller2;
    uint256 internal seller2Key;
    address internal stranger;
    uint256 internal strangerKey;

    uint256 private _refCounter;
    uint256 private _x402Counter;
    /// @dev The ref each escrow funded by {_fundAs} was funded under.
    mapping(bytes32 id => bytes32 ref) private _refs;

    struct Auth {
        uint256 validAfter;
        uint256 validBefore;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    struct Balances {
        uint256 buyer;
        uint256 seller;
        uint256 feeRecipient;
        uint256 escrow;
    }

    function setUp() public virtual {
        vm.warp(NOW);
        owner = makeAddr("owner");
        usdcOwner = makeAddr("usdcOwner");
        feeRecipient = makeAddr("feeRecipient");
        arbiter = makeAddr("arbiter");
        operator = makeAddr("operator");
        relayer = makeAddr("relayer");
        (buyer, buyerKey) = makeAccount("buyer");
        (seller, sellerKey) = makeAccount("seller");
        (seller2, seller2Key) = makeAccount("seller2");
        (stranger, strangerKey) = makeAccount("stranger");

        usdc = new MockUSDC(usdcOwner);
        escrow = new AgentEscrow(address(usdc), MAX_FEE_BPS, FEE_BPS, feeRecipient, arbiter, operator, owner);
        vm.label(address(usdc), "MockUSDC");
        vm.label(address(escrow), "AgentEscrow");

        _mintAndApprove(buyer, START_BALANCE);
        _mintAndApprove(seller, START_BALANCE);
        _mintAndApprove(seller2, START_BALANCE);
        _mintAndApprove(stranger, START_BALANCE);
    }

    /*------------------------------ time, refs and ids ------------------------------*/

    function _now() internal view returns (uint256) {
        return vm.getBlockTimestamp();
    }

    function _skip(uint256 seconds_) internal {
        vm.warp(_now() + seconds_);
    }

    /// @dev A fresh funding reference (the API's transaction uuid, on chain).
    function _newRef() internal returns (bytes32) {
        return keccak256(abi.encode("escrow", ++_refCounter));
    }

    /// @dev The id of the escrow `buyer_` funds under `ref`, computed here independently of the
    /// contract's {escrowIdOf}: keccak256 of the ABI-encoded buyer and ref.
    function _idOf(address buyer_, bytes32 ref) internal pure returns (bytes32) {
        return keccak256(abi.encode(buyer_, ref));
    }

    /// @dev The ref an escrow funded by {_fundAs} was funded under.
    function _refOf(bytes32 id) internal view returns (bytes32 ref) {
        ref = _refs[id];
        require(ref != bytes32(0), "not funded by _fundAs");
    }

    function _deadline() internal view returns (uint40) {
        return uint40(_now() + DURATION);
    }

    /*------------------------------ tokens ------------------------------*/

    function _mintAndApprove(address account, uint256 amount) internal {
        usdc.mint(account, amount);
        vm.prank(account);
        usdc.approve(address(escrow), type(uint256).max);
    }

    function _blacklist(address account) internal {
        vm.prank(usdcOwner);
        usdc.blacklist(account);
    }

    function _unBlacklist(address account) internal {
        vm.prank(usdcOwner);
        usdc.unBlacklist(account);
    }

    function _balances(IAgentEscrow.Escrow memory t) internal view returns (Balances memory b) {
        b.buyer = usdc.balanceOf(t.buyer);
        b.seller = t.seller == address(0) ? 0 : usdc.balanceOf(t.seller);
        b.feeRecipient = usdc.balanceOf(escrow.feeRecipient());
        b.escrow = usdc.balanceOf(address(escrow));
    }

    /// @dev Asserts the exact gains of each payee and the escrow's exact loss since `before`.
    function _assertPaid(
        Balances memory before,
        IAgentEscrow.Escrow memory t,
        uint256 buyerGain,
        uint256 sellerGain,
        uint256 feeGain,
        string memory label
    ) internal view {
        Balances memory afterwards = _balances(t);
        assertEq(afterwards.buyer, before.buyer + buyerGain, string.concat(label, ": buyer balance"));
        assertEq(afterwards.seller, before.seller + sellerGain, string.concat(label, ": seller balance"));
        assertEq(
            afterwards.feeRecipient, before.feeRecipient + feeGain, string.concat(label, ": fee recipient balance")
        );
        assertEq(
            afterwards.escrow,
            before.escrow - buyerGain - sellerGain - feeGain,
            string.concat(label, ": escrow balance")
        );
    }

    /*------------------------------ terms ------------------------------*/

    function _copy(IAgentEscrow.Escrow memory t) internal pure returns (IAgentEscrow.Escrow memory c) {
        c = IAgentEscrow.Escrow({
            buyer: t.buyer,
            seller: t.seller,
            amount: t.amount,
            deadline: t.deadline,
            disputeWindow: t.disputeWindow,
            deliveredAt: t.deliveredAt,
            feeBps: t.feeBps
        });
    }

    /// @dev `t` with one field (0..6, in struct order) changed.
    function _mutate(IAgentEscrow.Escrow memory t, uint256 field) internal pure returns (IAgentEscrow.Escrow memory m) {
        m = _copy(t);
        if (field == 0) m.buyer = address(uint160(m.buyer) ^ 1);
        else if (field == 1) m.seller = address(uint160(m.seller) ^ 1);
        else if (field == 2) m.amount ^= 1;
        else if (field == 3) m.deadline ^= 1;
        else if (field == 4) m.disputeWindow ^= 1;
        else if (field == 5) m.deliveredAt ^= 1;
        else m.feeBps ^= 1;
    }

    /// @dev The stored hash of `t`, computed here: keccak of the ABI-encoded struct, low byte cleared.
    function _hashTerms(IAgentEscrow.Escrow memory t) internal pure returns (bytes32) {
        return keccak256(abi.encode(t)) & ~bytes32(uint256(0xff));
    }

    function _assertState(bytes32 id, IAgentEscrow.Status status, IAgentEscrow.Escrow memory t, string memory label)
        internal
        view
    {
        (IAgentEscrow.Status actual, bytes32 termsHash) = escrow.escrowState(id);
        assertEq(uint256(actual), uint256(status), string.concat(label, ": status"));
        assertEq(termsHash, escrow.hashTerms(t), string.concat(label, ": terms hash == hashTerms(terms)"));
        assertEq(termsHash, _hashTerms(t), string.concat(label, ": terms hash == keccak(terms) & ~0xff"));
    }

    /*------------------------------ moves ------------------------------*/

    /// @dev `buyer_` funds these terms under `ref`; returns the escrow's id and its terms.
    function _fundAsWithRef(
        address buyer_,
        bytes32 ref,
        address seller_,
        uint256 amount,
        uint40 deadline,
        uint32 window
    ) internal returns (bytes32 id, IAgentEscrow.Escrow memory t) {
        id = _idOf(buyer_, ref);
        _refs[id] = ref;
        uint16 feeBps = escrow.feeBps();
        vm.prank(buyer_);
        escrow.fund(ref, seller_, amount, deadline, window);
        t = IAgentEscrow.Escrow({
            buyer: buyer_,
            seller: seller_,
            amount: amount,
            deadline: deadline,
            disputeWindow: window,
            deliveredAt: 0,
            feeBps: feeBps
        });
    }

    /// @dev `buyer_` funds these terms under a fresh ref.
    function _fundAs(address buyer_, address seller_, uint256 amount, uint40 deadline, uint32 window)
        internal
        returns (bytes32 id, IAgentEscrow.Escrow memory t)
    {
        return _fundAsWithRef(buyer_, _newRef(), seller_, amount, deadline, window);
    }

    /// @dev A FIXED escrow: buyer -> seller, AMOUNT, due in DURATION, WINDOW to dispute.
    function _fund() internal returns (bytes32 id, IAgentEscrow.Escrow memory t) {
        return _fundAs(buyer, seller, AMOUNT, _deadline(), WINDOW);
    }

    /// @dev An unclaimed bounty: as {_fund} with no seller.
    function _fundBounty() internal returns (bytes32 id, IAgentEscrow.Escrow memory t) {
        return _fundAs(buyer, address(0), AMOUNT, _deadline(), WINDOW);
    }

    /// @dev The operator assigns `seller_` with `deadline`; returns the new terms.
    function _assign(bytes32 id, IAgentEscrow.Escrow memory t, address seller_, uint40 deadline)
        internal
        returns (IAgentEscrow.Escrow memory next)
    {
        vm.prank(operator);
        escrow.assignSeller(id, t, seller_, deadline);
        next = _copy(t);
        next.seller = seller_;
        next.deadline = deadline;
    }

    /// @dev The seller delivers now; returns the new terms (deliveredAt = now).
    function _deliver(bytes32 id, IAgentEscrow.Escrow memory t) internal returns (IAgentEscrow.Escrow memory next) {
        vm.prank(t.seller);
        escrow.deliver(id, t, DELIVERABLE);
        next = _copy(t);
        next.deliveredAt = uint40(_now());
    }

    function _fundAndDeliver() internal returns (bytes32 id, IAgentEscrow.Escrow memory t) {
        (id, t) = _fund();
        t = _deliver(id, t);
    }

    function _dispute(bytes32 id, IAgentEscrow.Escrow memory t, address by) internal {
        vm.prank(by);
        escrow.dispute(id, t, REASON);
    }

    /// @dev A FIXED escrow, delivered, then disputed by the buyer.
    function _fundAndDispute() internal returns (bytes32 id, IAgentEscrow.Escrow memory t) {
        (id, t) = _fundAndDeliver();
        _dispute(id, t, buyer);
    }

    /// @dev A terminal escrow in `status` (Released, Refunded or Resolved), with its final terms.
    function _terminal(IAgentEscrow.Status status) internal returns (bytes32 id, IAgentEscrow.Escrow memory t) {
        if (status == IAgentEscrow.Status.Released) {
            (id, t) = _fundAndDeliver();
            vm.prank(buyer);
            escrow.release(id, t);
        } else if (status == IAgentEscrow.Status.Refunded) {
            (id, t) = _fund();
            vm.prank(buyer);
            escrow.refund(id, t);
        } else if (status == IAgentEscrow.Status.Resolved) {
            (id, t) = _fundAndDispute();
            vm.prank(arbiter);
            escrow.resolve(id, t, 5_000);
        } else {
            revert("not a terminal status");
        }
        _assertState(id, status, t, "terminal fixture");
    }

    function _fee(uint256 amount, uint16 feeBps) internal pure returns (uint256) {
        return (amount * feeBps) / BPS;
    }

    /*------------------------------ EIP-712: escrow actions ------------------------------*/

    function _escrowDomain(address verifyingContract, uint256 chainId) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("AgentEscrow"), keccak256("1"), chainId, verifyingContract)
        );
    }

    function _escrowDomain() internal view returns (bytes32) {
        return _escrowDomain(address(escrow), block.chainid);
    }

    /// @dev 65-byte r || s || v signature of the EIP-712 digest of `structHash` in `domain`.
    function _signTyped(uint256 key, bytes32 domain, bytes32 structHash) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, keccak256(abi.encodePacked("\x19\x01", domain, structHash)));
        return abi.encodePacked(r, s, v);
    }

    function _assignSellerStruct(bytes32 id, address seller_, uint40 deadline, uint256 nonce, uint256 sigDeadline)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(ASSIGN_SELLER_TYPEHASH, id, seller_, deadline, nonce, sigDeadline));
    }

    function _deliverStruct(bytes32 id, bytes32 deliverableHash, uint256 nonce, uint256 sigDeadline)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(DELIVER_TYPEHASH, id, deliverableHash, nonce, sigDeadline));
    }

    function _releaseStruct(bytes32 id, uint256 nonce, uint256 sigDeadline) internal pure returns (bytes32) {
        return keccak256(abi.encode(RELEASE_TYPEHASH, id, nonce, sigDeadline));
    }

    function _refundStruct(bytes32 id, uint256 nonce, uint256 sigDeadline) internal pure returns (bytes32) {
        return keccak256(abi.encode(REFUND_TYPEHASH, id, nonce, sigDeadline));
    }

    function _disputeStruct(bytes32 id, bytes32 reasonHash, uint256 nonce, uint256 sigDeadline)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(DISPUTE_TYPEHASH, id, reasonHash, nonce, sigDeadline));
    }

    function _signAssignSeller(
        uint256 key,
        bytes32 id,
        address seller_,
        uint40 deadline,
        uint256 nonce,
        uint256 sigDeadline
    ) internal view returns (bytes memory) {
        return _signTyped(key, _escrowDomain(), _assignSellerStruct(id, seller_, deadline, nonce, sigDeadline));
    }

    function _signDeliver(uint256 key, bytes32 id, bytes32 deliverableHash, uint256 nonce, uint256 sigDeadline)
        internal
        view
        returns (bytes memory)
    {
        return _signTyped(key, _escrowDomain(), _deliverStruct(id, deliverableHash, nonce, sigDeadline));
    }

    function _signRelease(uint256 key, bytes32 id, uint256 nonce, uint256 sigDeadline)
        internal
        view
        returns (bytes memory)
    {
        return _signTyped(key, _escrowDomain(), _releaseStruct(id, nonce, sigDeadline));
    }

    function _signRefund(uint256 key, bytes32 id, uint256 nonce, uint256 sigDeadline)
        internal
        view
        returns (bytes memory)
    {
        return _signTyped(key, _escrowDomain(), _refundStruct(id, nonce, sigDeadline));
    }

    function _signDispute(uint256 key, bytes32 id, bytes32 reasonHash, uint256 nonce, uint256 sigDeadline)
        internal
        view
        returns (bytes memory)
    {
        return _signTyped(key, _escrowDomain(), _disputeStruct(id, reasonHash, nonce, sigDeadline));
    }

    /*------------------------------ EIP-3009: funding ------------------------------*/

    function _usdcDomain() internal view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("USD Coin"), keccak256("2"), block.chainid, address(usdc))
        );
    }

    /// @dev `key`'s ReceiveWithAuthorization moving `value` from `from` to the escrow.
    function _signReceive(
        uint256 key,
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) internal view returns (uint8 v, bytes32 r, bytes32 s) {
        bytes32 structHash = keccak256(
            abi.encode(
                RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, address(escrow), value, validAfter, validBefore, nonce
            )
        );
        return vm.sign(key, keccak256(abi.encodePacked("\x19\x01", _usdcDomain(), structHash)));
    }

    /// @dev `key`'s authorization funding these terms under `ref`, valid for the next hour, with the
    /// nonce `escrow.fundingNonce(_idOf(from, ref), seller_, deadline, window)`.
    function _authorize(
        uint256 key,
        address from,
        bytes32 ref,
        address seller_,
        uint256 amount,
        uint40 deadline,
        uint32 window
    ) internal view returns (Auth memory a) {
        a.validAfter = _now() - 1;
        a.validBefore = _now() + 1 hours;
        (a.v, a.r, a.s) = _signReceive(
            key,
            from,
            amount,
            a.validAfter,
            a.validBefore,
            escrow.fundingNonce(_idOf(from, ref), seller_, deadline, window)
        );
    }

    /// @dev The relayer submits `a` for these terms under `ref`.
    function _fundWithAuth(
        bytes32 ref,
        address from,
        address seller_,
        uint256 amount,
        uint40 deadline,
        uint32 window,
        Auth memory a
    ) internal {
        vm.prank(relayer);
        IAgentEscrow.FundingAuthorization memory authorization =
            IAgentEscrow.FundingAuthorization(a.validAfter, a.validBefore, a.v, a.r, a.s);
        escrow.fundWithAuthorization(ref, from, seller_, amount, deadline, window, authorization);
    }

    /*------------------------------ EIP-3009: x402 payments ------------------------------*/

    /// @dev The EIP-712 digest of `from`'s TransferWithAuthorization to `to` in the token's domain,
    /// computed here independently of the escrow's {transferAuthorizationDigest}.
    function _transferDigest(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) internal view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)
        );
        return keccak256(abi.encodePacked("\x19\x01", _usdcDomain(), structHash));
    }

    /// @dev A fresh x402 nonce: random-looking bytes, as a client draws them.
    function _x402Nonce() internal returns (bytes32) {
        return keccak256(abi.encode("x402 nonce", ++_x402Counter));
    }

    /// @dev What a stock x402 client sends for a payment of `value` to `to`: a TransferWithAuthorization
    /// signed by `key` for `from`, valid from `now - 600` to `now + 300`, with a fresh random nonce.
    function _x402PaymentTo(uint256 key, address from, address to, uint256 value)
        internal
        returns (IAgentEscrow.TransferAuthorization memory a)
    {
        a.from = from;
        a.value = value;
        a.validAfter = _now() - X402_VALID_AFTER_LAG;
        a.validBefore = _now() + X402_TIMEOUT;
        a.nonce = _x402Nonce();
        (uint8 v, bytes32 r, bytes32 s) =
            vm.sign(key, _transferDigest(from, to, value, a.validAfter, a.validBefore, a.nonce));
        a.signature = abi.encodePacked(r, s, v);
    }

    /// @dev An x402 payment of `value` to the escrow, signed by `key` for `from`.
    function _x402Payment(uint256 key, address from, uint256 value)
        internal
        returns (IAgentEscrow.TransferAuthorization memory)
    {
        return _x402PaymentTo(key, from, address(escrow), value);
    }

    /// @dev The operator settles `a` into an escrow for `seller_` with these terms.
    function _fundWithTransfer(
        IAgentEscrow.TransferAuthorization memory a,
        address seller_,
        uint40 deadline,
        uint32 window
    ) internal returns (bytes32 id) {
        vm.prank(operator);
        id = escrow.fundWithTransfer(seller_, deadline, window, a);
    }

    /// @dev The terms of the escrow `a` funds for `seller_`, at the current fee.
    function _x402Terms(IAgentEscrow.TransferAuthorization memory a, address seller_, uint40 deadline, uint32 window)
        internal
        view
        returns (IAgentEscrow.Escrow memory)
    {
        return IAgentEscrow.Escrow({
            buyer: a.from,
            seller: seller_,
            amount: a.value,
            deadline: deadline,
            disputeWindow: window,
            deliveredAt: 0,
            feeBps: escrow.feeBps()
        });
    }

    /// @dev Anyone submits `a` to the token directly, as a front-runner of {fundWithTransfer} would.
    function _submitToToken(IAgentEscrow.TransferAuthorization memory a, address to, address by) internal {
        vm.prank(by);
        usdc.transferWithAuthorization(a.from, to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature);
    }

    /// @dev `key` cancels `authorizer`'s nonce at the token.
    function _cancelAuthorization(uint256 key, address authorizer, bytes32 nonce) internal {
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", _usdcDomain(), structHash));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        usdc.cancelAuthorization(authorizer, nonce, v, r, s);
    }
}
