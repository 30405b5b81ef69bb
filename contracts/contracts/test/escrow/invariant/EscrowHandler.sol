// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AgentEscrow} from "../../../AgentEscrow.sol";
import {IAgentEscrow} from "../../../interfaces/IAgentEscrow.sol";
import {MockUSDC} from "../../../mocks/MockUSDC.sol";
import {Test} from "../../utils/Test.sol";

/// @dev Drives random sequences of escrow moves among four actors (each may be buyer or seller),
/// with time warps, blacklisting of payees and credit withdrawals. Every move is tried whether or
/// not the rules allow it; a model of the rules predicts the outcome, and any call whose outcome
/// differs from the prediction is counted in {ghostUnexpected} (the invariant fuzzer ignores
/// reverts, so the handler must not assert itself). Ghost state tracks each escrow's terms and
/// status, the open amounts, and what every address minted, paid in and is owed.
///
/// Funding picks its ref either fresh or from an escrow already funded (by any actor), so the same
/// ref is funded by several buyers (each must get an escrow of its own at escrowIdOf(buyer, ref))
/// and reused by its own buyer (which must revert with Escrow_AlreadyExists).
///
/// x402 payments (fundWithTransfer) take their nonce from the same pool of refs, so an authorization
/// is replayed, or collides with a ref its buyer funded otherwise; each (from, nonce) that funded an
/// escrow is recorded, with how many escrows it funded. A payment may also be submitted to the token
/// directly first and settled afterwards, and the operator tries every move on every escrow, acting
/// for the buyer of x402 escrows only.
contract EscrowHandler is Test {
    uint256 internal constant BPS = 10_000;
    uint256 internal constant ACTORS = 4;
    uint256 internal constant MAX_AMOUNT = type(uint128).max;

    MockUSDC public immutable usdc;
    AgentEscrow public immutable escrow;
    address public immutable owner;
    address public immutable feeRecipient;
    address public immutable arbiter;
    address public immutable operator;

    address[] internal _actors;
    uint256[] internal _keys;

    bytes32[] internal _ids;
    mapping(bytes32 id => IAgentEscrow.Escrow) internal _terms;
    mapping(bytes32 id => IAgentEscrow.Status) internal _status;
    /// @dev Funded without a seller: only then may the operator assign one.
    mapping(bytes32 id => bool) internal _bounty;
    /// @dev Funded by an x402 payment: the operator acts for the buyer in release and dispute.
    mapping(bytes32 id => bool) internal _delegated;
    /// @dev Every (from, nonce) whose authorization funded an escrow, and how many escrows it funded.
    address[] internal _paymentFroms;
    bytes32[] internal _paymentNonces;
    mapping(address from => mapping(bytes32 nonce => uint256)) public ghostEscrowsFundedByAuthorization;
    /// @dev The ref each escrow was funded under, and the (buyer, ref) pairs funded so far.
    mapping(bytes32 id => bytes32 ref) internal _refs;
    mapping(address buyer => mapping(bytes32 ref => bool)) internal _fundedRef;
    mapping(bytes32 ref => uint256) internal _escrowsUnderRef;

    /// @dev Terminal escrows and the (status, hash) they ended with.
    bytes32[] internal _closedIds;
    mapping(bytes32 id => bytes32) public ghostFinalHash;

    uint256 public ghostOpenAmounts;
    uint256 public ghostMinted;
    mapping(address account => uint256) public ghostMintedTo;
    mapping(address account => uint256) public ghostPaidIn;
    /// @dev Payouts owed to `account` by the escrow's rules: paid out or credited.
    mapping(address account => uint256) public ghostOwed;
    mapping(address account => bool) public ghostBlacklisted;

    uint256 public ghostUnexpected;
    string public ghostUnexpectedLabel;
    mapping(string move => uint256) public ghostSucceeded;

    uint256 internal _refCounter;
    uint256 internal _sigNonce;

    constructor() {
        owner = makeAddr("inv-owner");
        feeRecipient = makeAddr("inv-feeRecipient");
        arbiter = makeAddr("inv-arbiter");
        operator = makeAddr("inv-operator");
        usdc = new MockUSDC(address(this)); // the handler is the blacklister
        escrow = new AgentEscrow(address(usdc), 1_000, 100, feeRecipient, arbiter, operator, owner);
        for (uint256 i; i < ACTORS; ++i) {
            (address actor, uint256 key) = makeAccount(string.concat("inv-actor-", _digit(i)));
            _actors.push(actor);
            _keys.push(key);
            vm.prank(actor);
            usdc.approve(address(escrow), type(uint256).max);
        }
    }

    /*------------------------------ views for the invariants ------------------------------*/

    function actorCount() external pure returns (uint256) {
        return ACTORS;
    }

    function actorAt(uint256 i) external view returns (address) {
        return _actors[i];
    }

    function idCount() external view returns (uint256) {
        return _ids.length;
    }

    function idAt(uint256 i) external view returns (bytes32) {
        return _ids[i];
    }

    function closedCount() external view returns (uint256) {
        return _closedIds.length;
    }

    function closedAt(uint256 i) external view returns (bytes32) {
        return _closedIds[i];
    }

    function termsOf(bytes32 id) external view returns (IAgentEscrow.Escrow memory) {
        return _terms[id];
    }

    function statusOf(bytes32 id) external view returns (IAgentEscrow.Status) {
        return _status[id];
    }

    function refOf(bytes32 id) external view returns (bytes32) {
        return _refs[id];
    }

    function bountyOf(bytes32 id) external view returns (bool) {
        return _bounty[id];
    }

    function delegatedOf(bytes32 id) external view returns (bool) {
        return _delegated[id];
    }

    function paymentCount() external view returns (uint256) {
        return _paymentFroms.length;
    }

    function paymentAt(uint256 i) external view returns (address from, bytes32 nonce) {
        return (_paymentFroms[i], _paymentNonces[i]);
    }

    /*------------------------------ funding ------------------------------*/

    function fund(
        uint256 buyerSeed,
        uint256 sellerSeed,
        uint256 refSeed,
        uint256 amount,
        uint256 duration,
        uint256 window,
        bool bounty
    ) external {
        (address buyer,) = _actor(buyerSeed);
        address seller = bounty ? address(0) : _otherActor(buyer, sellerSeed);
        amount = _amount(amount);
        uint40 deadline = uint40(_now() + bound(duration, 1, 20 days));
        uint32 disputeWindow = uint32(bound(window, 0, 5 days));
        bytes32 ref = _ref(refSeed);
        _mint(buyer, amount);

        vm.prank(buyer);
        try escrow.fund(ref, seller, amount, deadline, disputeWindow) {
            _expect(!_fundedRef[buyer][ref], "fund reused the buyer's ref");
            _expect(!ghostBlacklisted[buyer], "fund succeeded for a blacklisted buyer");
            _opened(ref, buyer, seller, amount, deadline, disputeWindow);
        } catch (bytes memory reason) {
            _expectFundingRevert(buyer, ref, reason, "fund reverted");
        }
    }

    function fundWithAuthorization(
        uint256 buyerSeed,
        uint256 sellerSeed,
        uint256 refSeed,
        uint256 amount,
        uint256 duration,
        uint256 window,
        bool bounty
    ) external {
        (address buyer, uint256 key) = _actor(buyerSeed);
        address seller = bounty ? address(0) : _otherActor(buyer, sellerSeed);
        amount = _amount(amount);
        uint40 deadline = uint40(_now() + bound(duration, 1, 20 days));
        uint32 disputeWindow = uint32(bound(window, 0, 5 days));
        bytes32 ref = _ref(refSeed);
        _mint(buyer, amount);

        // The nonce is over the id derived here, independently of the contract's escrowIdOf.
        IAgentEscrow.FundingAuthorization memory authorization =
            _authorize(key, buyer, amount, escrow.fundingNonce(_idOf(buyer, ref), seller, deadline, disputeWindow));

        // Submitted by the handler, acting as a relayer.
        try escrow.fundWithAuthorization(
            ref, buyer, seller, amount, deadline, disputeWindow, authorization
        ) {
            _expect(!_fundedRef[buyer][ref], "fundWithAuthorization reused the buyer's ref");
            _expect(!ghostBlacklisted[buyer], "fundWithAuthorization succeeded for a blacklisted buyer");
            _opened(ref, buyer, seller, amount, deadline, disputeWindow);
        } catch (bytes memory reason) {
            _expectFundingRevert(buyer, ref, reason, "fundWithAuthorization reverted");
        }
    }

    /// @dev An x402 payment: the buyer signs a TransferWithAuthorization to the escrow whose nonce is a
    /// ref from the pool (fresh, or one funded already: a replay, or a collision with the buyer's own
    /// escrow under that ref). The operator settles it, or (one time in four) an actor tries to, which
    /// must always be refused.
    function fundWithTransfer(
        uint256 buyerSeed,
        uint256 sellerSeed,
        uint256 nonceSeed,
        uint256 amount,
        uint256 duration,
        uint256 window,
        uint256 callerSeed
    ) external {
        (address buyer, uint256 key) = _actor(buyerSeed);
        address seller = _otherActor(buyer, sellerSeed);
        amount = _amount(amount);
        uint40 deadline = uint40(_now() + bound(duration, 1, 20 days));
        uint32 disputeWindow = uint32(bound(window, 0, 5 days));
        bytes32 nonce = _ref(nonceSeed);
        _mint(buyer, amount);
        IAgentEscrow.TransferAuthorization memory authorization = _x402Payment(key, buyer, amount, nonce);

        if (callerSeed % 4 == 0) {
            (address caller,) = _actor(callerSeed >> 2);
            vm.prank(caller);
            try escrow.fundWithTransfer(seller, deadline, disputeWindow, authorization) {
                _expect(false, "fundWithTransfer succeeded for a non-operator");
            } catch (bytes memory reason) {
                _expect(
                    keccak256(reason)
                        == keccak256(abi.encodeWithSelector(IAgentEscrow.Escrow_CallerNotOperator.selector, caller)),
                    "a non-operator's fundWithTransfer reverted with another error than Escrow_CallerNotOperator"
                );
                ++ghostSucceeded["fundWithTransfer by a non-operator refused"];
            }
            return;
        }

        vm.prank(operator);
        try escrow.fundWithTransfer(seller, deadline, disputeWindow, authorization) returns (bytes32 id) {
            _expect(!_fundedRef[buyer][nonce], "fundWithTransfer reused the buyer's ref");
            _expect(!ghostBlacklisted[buyer], "fundWithTransfer succeeded for a blacklisted buyer");
            _expect(id == _idOf(buyer, nonce), "fundWithTransfer returned another id than escrowIdOf(from, nonce)");
            _openedByPayment(nonce, buyer, seller, amount, deadline, disputeWindow);
        } catch (bytes memory reason) {
            _expectFundingRevert(buyer, nonce, reason, "fundWithTransfer reverted");
        }
    }

    /// @dev An x402 payment submitted to the token directly by a third party (the handler) before the
    /// operator settles it: the funds reach the escrow first, the settlement records the escrow
    /// without moving tokens, and the balance invariant holds only if it is credited exactly once.
    function frontRunThenSettle(
        uint256 buyerSeed,
        uint256 sellerSeed,
        uint256 amount,
        uint256 duration,
        uint256 window
    ) external {
        (address buyer, uint256 key) = _actor(buyerSeed);
        address seller = _otherActor(buyer, sellerSeed);
        amount = _amount(amount);
        uint40 deadline = uint40(_now() + bound(duration, 1, 20 days));
        uint32 disputeWindow = uint32(bound(window, 0, 5 days));
        bytes32 nonce = keccak256(abi.encode("inv-x402-front-run", ++_refCounter));
        _mint(buyer, amount);
        IAgentEscrow.TransferAuthorization memory a = _x402Payment(key, buyer, amount, nonce);

        try usdc.transferWithAuthorization(
            buyer, address(escrow), amount, a.validAfter, a.validBefore, nonce, a.signature
        ) {
            _expect(!ghostBlacklisted[buyer], "the token moved a blacklisted buyer's funds");
        } catch {
            _expect(ghostBlacklisted[buyer], "the token refused a valid authorization");
        }
        bool frontRun = usdc.authorizationState(buyer, nonce);

        vm.prank(operator);
        try escrow.fundWithTransfer(seller, deadline, disputeWindow, a) {
            _expect(frontRun, "a blacklisted buyer's payment was settled");
            _openedByPayment(nonce, buyer, seller, amount, deadline, disputeWindow);
            ++ghostSucceeded["front-run payment settled"];
        } catch {
            _expect(!frontRun, "a front-run payment was not settled");
        }
    }

    /// @dev `key`'s x402 payment of `amount` from `buyer` to the escrow, as a stock client signs it:
    /// valid from 600 s ago for 300 s.
    function _x402Payment(uint256 key, address buyer, uint256 amount, bytes32 nonce)
        internal
        view
        returns (IAgentEscrow.TransferAuthorization memory a)
    {
        a.from = buyer;
        a.value = amount;
        a.validAfter = _now() - 600;
        a.validBefore = _now() + 300;
        a.nonce = nonce;
        bytes32 structHash = keccak256(
            abi.encode(
                usdc.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(),
                buyer,
                address(escrow),
                amount,
                a.validAfter,
                a.validBefore,
                nonce
            )
        );
        (uint8 v, bytes32 r, bytes32 s) =
            vm.sign(key, keccak256(abi.encodePacked("\x19\x01", usdc.DOMAIN_SEPARATOR(), structHash)));
        a.signature = abi.encodePacked(r, s, v);
    }

    /// @dev A funding that reverted must have been refused for a reason the model knows: the buyer
    /// reused its own ref (exactly Escrow_AlreadyExists, checked first), or the token refused a
    /// blacklisted buyer. Another buyer's escrow under the same ref is never a reason.
    function _expectFundingRevert(address buyer, bytes32 ref, bytes memory reason, string memory label) internal {
        if (_fundedRef[buyer][ref]) {
            _expect(
                keccak256(reason)
                    == keccak256(abi.encodeWithSelector(IAgentEscrow.Escrow_AlreadyExists.selector, _idOf(buyer, ref))),
                "a reused ref reverted with another error than Escrow_AlreadyExists(escrowIdOf(buyer, ref))"
            );
            ++ghostSucceeded["reused ref refused"];
        } else {
            _expect(ghostBlacklisted[buyer], label);
        }
    }

    /// @dev The buyer (role 0), the seller if assigned (role 1), or else a random actor: moves that
    /// either party may make are tried by each of them and by outsiders.
    function _partyOrActor(IAgentEscrow.Escrow memory t, uint256 callerSeed, uint256 role)
        internal
        view
        returns (address caller)
    {
        (caller,) = _actor(callerSeed);
        role %= 3;
        if (role == 0) caller = t.buyer;
        else if (role == 1 && t.seller != address(0)) caller = t.seller;
    }

    /// @dev `key`'s EIP-3009 authorization for the escrow to pull `amount` from `buyer`, valid for an hour.
    function _authorize(uint256 key, address buyer, uint256 amount, bytes32 nonce)
        internal
        view
        returns (IAgentEscrow.FundingAuthorization memory authorization)
    {
        authorization.validAfter = _now() - 1;
        authorization.validBefore = _now() + 1 hours;
        bytes32 structHash = keccak256(
            abi.encode(
                usdc.RECEIVE_WITH_AUTHORIZATION_TYPEHASH(),
                buyer,
                address(escrow),
                amount,
                authorization.validAfter,
                authorization.validBefore,
                nonce
            )
        );
        (authorization.v, authorization.r, authorization.s) =
            vm.sign(key, keccak256(abi.encodePacked("\x19\x01", usdc.DOMAIN_SEPARATOR(), structHash)));
    }

    /*------------------------------ party actions ------------------------------*/

    function assignSeller(uint256 idSeed, uint256 sellerSeed, uint256 duration, bool byBuyer) external {
        if (_ids.length == 0) return;
        bytes32 id = _pick(idSeed);
        IAgentEscrow.Escrow memory t = _terms[id];
        address seller = _otherActor(t.buyer, sellerSeed);
        uint40 deadline = uint40(_now() + bound(duration, 1, 20 days));
        bool allowed = _status[id] == IAgentEscrow.Status.Funded && (t.seller == address(0) || _now() > t.deadline)
            && (byBuyer || _bounty[id]);
        _expect(escrow.isBounty(id) == _bounty[id], "isBounty disagrees with how the escrow was funded");

        vm.prank(byBuyer ? t.buyer : operator);
        try escrow.assignSeller(id, t, seller, deadline) {
            _expect(allowed, "assignSeller succeeded against the rules");
            _terms[id].seller = seller;
            _terms[id].deadline = deadline;
            ++ghostSucceeded["assignSeller"];
        } catch {
            _expect(!allowed, "assignSeller reverted");
        }
    }

    function deliver(uint256 idSeed, uint256 callerSeed, bool bySeller) external {
        if (_ids.length == 0) return;
        bytes32 id = _pick(idSeed);
        IAgentEscrow.Escrow memory t = _terms[id];
        (address caller,) = _actor(callerSeed);
        if (bySeller && t.seller != address(0)) caller = t.seller;
        bool allowed = _status[id] == IAgentEscrow.Status.Funded && caller == t.seller && _now() <= t.deadline;

        vm.prank(caller);
        try escrow.deliver(id, t, keccak256(abi.encode(id))) {
            _expect(allowed, "deliver succeeded against the rules");
            _terms[id].deliveredAt = uint40(_now());
            _status[id] = IAgentEscrow.Status.Delivered;
            ++ghostSucceeded["deliver"];
        } catch {
            _expect(!allowed, "deliver reverted");
        }
    }

    function release(uint256 idSeed, uint256 callerSeed, bool byBuyer) external {
        if (_ids.length == 0) return;
        bytes32 id = _pick(idSeed);
        IAgentEscrow.Escrow memory t = _terms[id];
        (address caller,) = _actor(callerSeed);
        if (byBuyer) caller = t.buyer;
        IAgentEscrow.Status status = _status[id];
        bool allowed = (
            status == IAgentEscrow.Status.Delivered
                && (caller == t.buyer || _now() >= uint256(t.deliveredAt) + t.disputeWindow)
        )
            || (
                (status == IAgentEscrow.Status.Funded || status == IAgentEscrow.Status.Disputed) && caller == t.buyer
                    && t.seller != address(0)
            );

        vm.prank(caller);
        try escrow.release(id, t) {
            _expect(allowed, "release succeeded against the rules");
            uint256 fee = (t.amount * t.feeBps) / BPS;
            ghostOwed[t.seller] += t.amount - fee;
            ghostOwed[feeRecipient] += fee;
            _closed(id, IAgentEscrow.Status.Released);
        } catch {
            _expect(!allowed, "release reverted");
        }
    }

    function refund(uint256 idSeed, uint256 callerSeed, uint256 role) external {
        if (_ids.length == 0) return;
        bytes32 id = _pick(idSeed);
        IAgentEscrow.Escrow memory t = _terms[id];
        address caller = _partyOrActor(t, callerSeed, role);
        IAgentEscrow.Status status = _status[id];
        bool allowed = (
            status == IAgentEscrow.Status.Funded && (caller == t.buyer || caller == t.seller || _now() > t.deadline)
        ) || ((status == IAgentEscrow.Status.Delivered || status == IAgentEscrow.Status.Disputed) && caller == t.seller);

        vm.prank(caller);
        try escrow.refund(id, t) {
            _expect(allowed, "refund succeeded against the rules");
            ghostOwed[t.buyer] += t.amount;
            _closed(id, IAgentEscrow.Status.Refunded);
        } catch {
            _expect(!allowed, "refund reverted");
        }
    }

    function dispute(uint256 idSeed, uint256 callerSeed, uint256 role) external {
        if (_ids.length == 0) return;
        bytes32 id = _pick(idSeed);
        IAgentEscrow.Escrow memory t = _terms[id];
        address caller = _partyOrActor(t, callerSeed, role);
        IAgentEscrow.Status status = _status[id];
        bool party = caller == t.buyer || caller == t.seller;
        bool allowed = party
            && (
                (status == IAgentEscrow.Status.Funded && t.seller != address(0) && _now() <= t.deadline)
                    || (
                        status == IAgentEscrow.Status.Delivered
                            && _now() < uint256(t.deliveredAt) + t.disputeWindow
                    )
            );

        vm.prank(caller);
        try escrow.dispute(id, t, keccak256("reason")) {
            _expect(allowed, "dispute succeeded against the rules");
            _status[id] = IAgentEscrow.Status.Disputed;
            ++ghostSucceeded["dispute"];
        } catch {
            _expect(!allowed, "dispute reverted");
        }
    }

    function resolve(uint256 idSeed, uint256 sellerBps) external {
        if (_ids.length == 0) return;
        bytes32 id = _pick(idSeed);
        IAgentEscrow.Escrow memory t = _terms[id];
        sellerBps = bound(sellerBps, 0, BPS);
        bool allowed = _status[id] == IAgentEscrow.Status.Disputed;

        vm.prank(arbiter);
        try escrow.resolve(id, t, uint16(sellerBps)) {
            _expect(allowed, "resolve succeeded against the rules");
            uint256 share = (t.amount * sellerBps) / BPS;
            uint256 fee = (share * t.feeBps) / BPS;
            ghostOwed[t.seller] += share - fee;
            ghostOwed[feeRecipient] += fee;
            ghostOwed[t.buyer] += t.amount - share;
            _closed(id, IAgentEscrow.Status.Resolved);
        } catch {
            _expect(!allowed, "resolve reverted");
        }
    }

    /// @dev The operator tries a release, a dispute or a refund on any escrow. It acts as the buyer in
    /// release and dispute of x402 escrows only; otherwise it has only what anyone has (the release
    /// after the dispute window, the refund after the deadline).
    function operatorActs(uint256 idSeed, uint256 move) external {
        if (_ids.length == 0) return;
        bytes32 id = _pick(idSeed);
        IAgentEscrow.Escrow memory t = _terms[id];
        IAgentEscrow.Status status = _status[id];
        bool delegated = _delegated[id];
        _expect(escrow.isOperatorDelegated(id) == delegated, "isOperatorDelegated disagrees with how it was funded");
        move %= 3;
        if (move == 0) {
            bool allowed = (
                status == IAgentEscrow.Status.Delivered
                    && (delegated || _now() >= uint256(t.deliveredAt) + t.disputeWindow)
            )
                || (
                    (status == IAgentEscrow.Status.Funded || status == IAgentEscrow.Status.Disputed) && delegated
                        && t.seller != address(0)
                );
            vm.prank(operator);
            try escrow.release(id, t) {
                _expect(allowed, "the operator's release succeeded against the rules");
                uint256 fee = (t.amount * t.feeBps) / BPS;
                ghostOwed[t.seller] += t.amount - fee;
                ghostOwed[feeRecipient] += fee;
                _closed(id, IAgentEscrow.Status.Released);
                if (delegated) ++ghostSucceeded["operator released for the buyer"];
            } catch {
                _expect(!allowed, "the operator's release reverted");
            }
        } else if (move == 1) {
            bool allowed = delegated
                && (
                    (status == IAgentEscrow.Status.Funded && t.seller != address(0) && _now() <= t.deadline)
                        || (
                            status == IAgentEscrow.Status.Delivered
                                && _now() < uint256(t.deliveredAt) + t.disputeWindow
                        )
                );
            vm.prank(operator);
            try escrow.dispute(id, t, keccak256("operator's reason")) {
                _expect(allowed, "the operator's dispute succeeded against the rules");
                _status[id] = IAgentEscrow.Status.Disputed;
                ++ghostSucceeded["operator disputed for the buyer"];
            } catch {
                _expect(!allowed, "the operator's dispute reverted");
            }
        } else {
            bool allowed = status == IAgentEscrow.Status.Funded && _now() > t.deadline;
            vm.prank(operator);
            try escrow.refund(id, t) {
                _expect(allowed, "the operator's refund succeeded against the rules");
                ghostOwed[t.buyer] += t.amount;
                _closed(id, IAgentEscrow.Status.Refunded);
            } catch {
                _expect(!allowed, "the operator's refund reverted");
            }
        }
    }

    /// @dev A caller passes the escrow's terms with one field changed: every move must refuse them.
    function forgeTerms(uint256 idSeed, uint256 field, uint256 move) external {
        if (_ids.length == 0) return;
        bytes32 id = _pick(idSeed);
        IAgentEscrow.Escrow memory t = _terms[id];
        field %= 7;
        if (field == 0) t.buyer = address(uint160(t.buyer) ^ 1);
        else if (field == 1) t.seller = address(uint160(t.seller) ^ 1);
        else if (field == 2) t.amount += 1;
        else if (field == 3) t.deadline += 1;
        else if (field == 4) t.disputeWindow += 1;
        else if (field == 5) t.deliveredAt += 1;
        else t.feeBps ^= 1;

        bool succeeded;
        move %= 4;
        if (move == 0) {
            vm.prank(t.buyer);
            try escrow.release(id, t) {
                succeeded = true;
            } catch {}
        } else if (move == 1) {
            vm.prank(t.seller == address(0) ? t.buyer : t.seller);
            try escrow.refund(id, t) {
                succeeded = true;
            } catch {}
        } else if (move == 2) {
            vm.prank(arbiter);
            try escrow.resolve(id, t, 10_000) {
                succeeded = true;
            } catch {}
        } else {
            vm.prank(t.buyer);
            try escrow.dispute(id, t, bytes32(0)) {
                succeeded = true;
            } catch {}
        }
        _expect(!succeeded, "a move accepted forged terms");
    }

    /// @dev The buyer releases through a relayer with a signature (covers the signed path).
    function releaseWithSig(uint256 idSeed) external {
        if (_ids.length == 0) return;
        bytes32 id = _pick(idSeed);
        IAgentEscrow.Escrow memory t = _terms[id];
        IAgentEscrow.Status status = _status[id];
        bool allowed = t.seller != address(0)
            && (
                status == IAgentEscrow.Status.Funded || status == IAgentEscrow.Status.Delivered
                    || status == IAgentEscrow.Status.Disputed
            );
        uint256 nonce = ++_sigNonce;
        uint256 sigDeadline = _now() + 1 hours;
        bytes32 structHash = keccak256(abi.encode(escrow.RELEASE_TYPEHASH(), id, nonce, sigDeadline));
        (uint8 v, bytes32 r, bytes32 s) =
            vm.sign(_keyOf(t.buyer), keccak256(abi.encodePacked("\x19\x01", escrow.DOMAIN_SEPARATOR(), structHash)));

        try escrow.releaseWithSig(id, t, t.buyer, nonce, sigDeadline, abi.encodePacked(r, s, v)) {
            _expect(allowed, "releaseWithSig succeeded against the rules");
            uint256 fee = (t.amount * t.feeBps) / BPS;
            ghostOwed[t.seller] += t.amount - fee;
            ghostOwed[feeRecipient] += fee;
            _closed(id, IAgentEscrow.Status.Released);
        } catch {
            _expect(!allowed, "releaseWithSig reverted");
        }
    }

    /*------------------------------ environment ------------------------------*/

    function warp(uint256 seconds_) external {
        vm.warp(_now() + bound(seconds_, 1, 6 days));
    }

    function blacklist(uint256 seed) external {
        address account = _payee(seed);
        usdc.blacklist(account);
        ghostBlacklisted[account] = true;
    }

    function unBlacklist(uint256 seed) external {
        address account = _payee(seed);
        usdc.unBlacklist(account);
        ghostBlacklisted[account] = false;
    }

    function withdrawCredit(uint256 seed, uint256 callerSeed) external {
        address account = _payee(seed);
        (address caller,) = _actor(callerSeed);
        uint256 credit = escrow.creditOf(account);
        uint256 balance = usdc.balanceOf(account);
        bool allowed = credit != 0 && !ghostBlacklisted[account];

        vm.prank(caller);
        try escrow.withdrawCredit(account) {
            _expect(allowed, "withdrawCredit succeeded against the rules");
            _expect(usdc.balanceOf(account) == balance + credit, "withdrawCredit paid a wrong amount");
            _expect(escrow.creditOf(account) == 0, "withdrawCredit left credit");
            ++ghostSucceeded["withdrawCredit"];
        } catch {
            _expect(!allowed, "withdrawCredit reverted");
            _expect(escrow.creditOf(account) == credit, "failed withdrawCredit changed the credit");
        }
    }

    /*------------------------------ internals ------------------------------*/

    function _now() internal view returns (uint256) {
        return vm.getBlockTimestamp();
    }

    function _digit(uint256 i) internal pure returns (string memory) {
        return string(abi.encodePacked(bytes1(uint8(48 + i))));
    }

    function _actor(uint256 seed) internal view returns (address, uint256) {
        uint256 i = seed % ACTORS;
        return (_actors[i], _keys[i]);
    }

    function _otherActor(address not, uint256 seed) internal view returns (address a) {
        (a,) = _actor(seed);
        if (a == not) (a,) = _actor(seed + 1);
    }

    function _keyOf(address account) internal view returns (uint256) {
        for (uint256 i; i < ACTORS; ++i) {
            if (_actors[i] == account) return _keys[i];
        }
        revert("not an actor");
    }

    /// @dev An actor or the fee recipient: the addresses the escrow pays.
    function _payee(uint256 seed) internal view returns (address) {
        uint256 i = seed % (ACTORS + 1);
        return i == ACTORS ? feeRecipient : _actors[i];
    }

    /// @dev Mostly small amounts, sometimes up to 2^128 - 1.
    function _amount(uint256 seed) internal pure returns (uint256) {
        return seed % 4 == 0 ? bound(seed, 1, MAX_AMOUNT) : bound(seed, 1, 1_000_000e6);
    }

    /// @dev Half the time the ref of an escrow already funded (by whichever actor), else a fresh one.
    function _ref(uint256 seed) internal returns (bytes32) {
        if (seed % 2 == 0 && _ids.length != 0) return _refs[_pick(seed >> 1)];
        return keccak256(abi.encode("inv-ref", ++_refCounter));
    }

    /// @dev The id the escrow must have: keccak256 of the ABI-encoded buyer and ref.
    function _idOf(address buyer, bytes32 ref) internal pure returns (bytes32) {
        return keccak256(abi.encode(buyer, ref));
    }

    function _pick(uint256 seed) internal view returns (bytes32) {
        return _ids[seed % _ids.length];
    }

    function _mint(address to, uint256 amount) internal {
        if (ghostBlacklisted[to]) return;
        usdc.mint(to, amount);
        ghostMinted += amount;
        ghostMintedTo[to] += amount;
    }

    function _opened(bytes32 ref, address buyer, address seller, uint256 amount, uint40 deadline, uint32 window)
        internal
    {
        bytes32 id = _idOf(buyer, ref);
        _ids.push(id);
        _refs[id] = ref;
        _fundedRef[buyer][ref] = true;
        // A buyer never funds its own ref twice, so an earlier escrow under it is another buyer's.
        if (_escrowsUnderRef[ref]++ != 0) ++ghostSucceeded["fund under another buyer's ref"];
        _bounty[id] = seller == address(0);
        _terms[id] = IAgentEscrow.Escrow({
            buyer: buyer,
            seller: seller,
            amount: amount,
            deadline: deadline,
            disputeWindow: window,
            deliveredAt: 0,
            feeBps: escrow.feeBps()
        });
        _status[id] = IAgentEscrow.Status.Funded;
        ghostOpenAmounts += amount;
        ghostPaidIn[buyer] += amount;
        ++ghostSucceeded["fund"];
    }

    /// @dev As {_opened}, for an escrow funded by `buyer`'s x402 payment with `nonce`.
    function _openedByPayment(
        bytes32 nonce,
        address buyer,
        address seller,
        uint256 amount,
        uint40 deadline,
        uint32 window
    ) internal {
        _opened(nonce, buyer, seller, amount, deadline, window);
        _delegated[_idOf(buyer, nonce)] = true;
        if (ghostEscrowsFundedByAuthorization[buyer][nonce]++ == 0) {
            _paymentFroms.push(buyer);
            _paymentNonces.push(nonce);
        }
        ++ghostSucceeded["fundWithTransfer"];
    }

    function _closed(bytes32 id, IAgentEscrow.Status status) internal {
        _status[id] = status;
        ghostOpenAmounts -= _terms[id].amount;
        _closedIds.push(id);
        (, bytes32 termsHash) = escrow.escrowState(id);
        ghostFinalHash[id] = termsHash;
        ++ghostSucceeded["close"];
    }

    function _expect(bool condition, string memory label) internal {
        if (!condition) {
            ++ghostUnexpected;
            ghostUnexpectedLabel = label;
        }
    }
}
