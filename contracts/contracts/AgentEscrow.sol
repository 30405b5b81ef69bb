// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

import {IAgentEscrow} from "./interfaces/IAgentEscrow.sol";
import {IERC3009} from "./interfaces/IERC3009.sol";

/// @title AgentEscrow
/// @notice USDC escrow of the agent marketplace. See {IAgentEscrow} for the rules of every move.
contract AgentEscrow is IAgentEscrow, Ownable2Step, EIP712, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    uint256 private constant BPS = 10_000;

    /// @dev An escrow's storage word: the terms hash in the high 31 bytes; in the low byte, the
    /// status (low 6 bits; its values are below 8), whether the escrow was funded as a bounty (bit 7)
    /// and whether it was funded by an x402 payment, so the operator acts for its buyer (bit 6).
    bytes32 private constant HASH_MASK = ~bytes32(uint256(0xff));
    uint256 private constant STATUS_MASK = 0x3f;
    bytes32 private constant BOUNTY_FLAG = bytes32(uint256(0x80));
    bytes32 private constant DELEGATED_FLAG = bytes32(uint256(0x40));
    /// @dev The flags that stay with an escrow for life, whatever its terms and status become.
    bytes32 private constant FLAGS = BOUNTY_FLAG | DELEGATED_FLAG;

    bytes32 public constant ASSIGN_SELLER_TYPEHASH = keccak256(
        "AssignSeller(bytes32 escrowId,address seller,uint40 deadline,uint256 nonce,uint256 sigDeadline)"
    );
    bytes32 public constant DELIVER_TYPEHASH =
        keccak256("Deliver(bytes32 escrowId,bytes32 deliverableHash,uint256 nonce,uint256 sigDeadline)");
    bytes32 public constant RELEASE_TYPEHASH = keccak256("Release(bytes32 escrowId,uint256 nonce,uint256 sigDeadline)");
    bytes32 public constant REFUND_TYPEHASH = keccak256("Refund(bytes32 escrowId,uint256 nonce,uint256 sigDeadline)");
    bytes32 public constant DISPUTE_TYPEHASH =
        keccak256("Dispute(bytes32 escrowId,bytes32 reasonHash,uint256 nonce,uint256 sigDeadline)");

    /// @dev EIP-3009's type hash of a transfer authorization, signed in the token's domain. Private:
    /// clients read the whole digest from {transferAuthorizationDigest}.
    bytes32 private constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    /// @inheritdoc IAgentEscrow
    uint40 public constant MAX_DURATION = 365 days;

    /// @inheritdoc IAgentEscrow
    uint32 public constant MAX_DISPUTE_WINDOW = 30 days;

    /// @inheritdoc IAgentEscrow
    address public immutable token;

    /// @inheritdoc IAgentEscrow
    uint16 public immutable MAX_FEE_BPS;

    /*//////////////////////////////////////////////////////////////
                                 STATE
    //////////////////////////////////////////////////////////////*/

    // Fee recipient and fee share one slot: funding reads the fee, release reads both.
    address private _feeRecipient;
    uint16 private _feeBps;

    address private _arbiter;
    address private _operator;
    uint256 private _totalCredits;

    mapping(bytes32 escrowId => bytes32 word) private _escrows;
    mapping(address account => uint256 amount) private _credits;
    mapping(address signer => mapping(uint256 wordPos => uint256 bits)) private _nonceBitmaps;

    /*//////////////////////////////////////////////////////////////
                              CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param token_ The escrowed token (USDC, or MockUSDC on local chains).
    /// @param maxFeeBps_ Immutable cap of the fee, at most 10,000.
    /// @param feeBps_ Initial fee on sellers' shares.
    /// @param feeRecipient_ Who receives fees.
    /// @param arbiter_ Who settles disputes.
    /// @param operator_ The platform's relayer: assigns bounty sellers, submits x402 payments and acts
    /// for their buyers; zero for none.
    /// @param owner_ Who administers the fee and the roles.
    constructor(
        address token_,
        uint16 maxFeeBps_,
        uint16 feeBps_,
        address feeRecipient_,
        address arbiter_,
        address operator_,
        address owner_
    ) Ownable(owner_) EIP712("AgentEscrow", "1") {
        if (token_ == address(0) || feeRecipient_ == address(0) || arbiter_ == address(0)) {
            revert Escrow_ZeroAddress();
        }
        if (maxFeeBps_ > BPS) revert Escrow_FeeAboveCap(maxFeeBps_, uint16(BPS));
        if (feeBps_ > maxFeeBps_) revert Escrow_FeeAboveCap(feeBps_, maxFeeBps_);
        token = token_;
        MAX_FEE_BPS = maxFeeBps_;
        _feeBps = feeBps_;
        _feeRecipient = feeRecipient_;
        _arbiter = arbiter_;
        _operator = operator_;
        emit FeeUpdated(feeBps_);
        emit FeeRecipientUpdated(feeRecipient_);
        emit ArbiterUpdated(arbiter_);
        emit OperatorUpdated(operator_);
    }

    /*//////////////////////////////////////////////////////////////
                                FUNDING
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IAgentEscrow
    function fund(bytes32 ref, address seller, uint256 amount, uint40 deadline, uint32 disputeWindow)
        external
        nonReentrant
    {
        _open(ref, msg.sender, seller, amount, deadline, disputeWindow, 0);
        IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
    }

    /// @inheritdoc IAgentEscrow
    function fundWithAuthorization(
        bytes32 ref,
        address buyer,
        address seller,
        uint256 amount,
        uint40 deadline,
        uint32 disputeWindow,
        FundingAuthorization calldata authorization
    ) external nonReentrant {
        bytes32 escrowId = _open(ref, buyer, seller, amount, deadline, disputeWindow, 0);
        // The nonce commits the buyer's signature to these terms, and through the derived id to the
        // buyer and the ref: a submitter who changes any of them presents a different nonce, and the
        // token rejects the signature.
        IERC3009(token).receiveWithAuthorization(
            buyer,
            address(this),
            amount,
            authorization.validAfter,
            authorization.validBefore,
            fundingNonce(escrowId, seller, deadline, disputeWindow),
            authorization.v,
            authorization.r,
            authorization.s
        );
    }

    /// @inheritdoc IAgentEscrow
    function fundWithTransfer(
        address seller,
        uint40 deadline,
        uint32 disputeWindow,
        TransferAuthorization calldata authorization
    ) external nonReentrant returns (bytes32 escrowId) {
        // Checks: the signature does not bind the terms, so only the operator may choose them.
        if (msg.sender != _operator) revert Escrow_CallerNotOperator(msg.sender);
        // A bounty's seller is assigned by the operator, which here may also release for the buyer.
        if (seller == address(0)) revert Escrow_InvalidSeller(seller);
        address from = authorization.from;
        bytes32 nonce = authorization.nonce;

        // Effects: the nonce is the ref, so the id, escrowIdOf(from, nonce), is taken once ever.
        escrowId = _open(nonce, from, seller, authorization.value, deadline, disputeWindow, DELEGATED_FLAG);

        // Interactions:
        try IERC3009(token).transferWithAuthorization(
            from,
            address(this),
            authorization.value,
            authorization.validAfter,
            authorization.validBefore,
            nonce,
            authorization.signature
        ) {} catch (bytes memory reason) {
            // Submitted to the token directly first: the funds are here already. Anything else (a bad
            // signature, an expired window, a blacklisted buyer) is the token's refusal.
            if (!_isUsedAuthorizationOf(authorization)) {
                assembly ("memory-safe") {
                    revert(add(reason, 0x20), mload(reason))
                }
            }
        }
    }

    /*//////////////////////////////////////////////////////////////
                             PARTY ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IAgentEscrow
    function assignSeller(bytes32 escrowId, Escrow calldata escrow, address seller, uint40 deadline) external {
        _assignSeller(escrowId, escrow, seller, deadline, msg.sender);
    }

    /// @inheritdoc IAgentEscrow
    function deliver(bytes32 escrowId, Escrow calldata escrow, bytes32 deliverableHash) external {
        _deliver(escrowId, escrow, deliverableHash, msg.sender);
    }

    /// @inheritdoc IAgentEscrow
    function release(bytes32 escrowId, Escrow calldata escrow) external nonReentrant {
        _release(escrowId, escrow, msg.sender);
    }

    /// @inheritdoc IAgentEscrow
    function refund(bytes32 escrowId, Escrow calldata escrow) external nonReentrant {
        _refund(escrowId, escrow, msg.sender);
    }

    /// @inheritdoc IAgentEscrow
    function dispute(bytes32 escrowId, Escrow calldata escrow, bytes32 reasonHash) external {
        _dispute(escrowId, escrow, reasonHash, msg.sender);
    }

    /// @inheritdoc IAgentEscrow
    function resolve(bytes32 escrowId, Escrow calldata escrow, uint16 sellerBps) external nonReentrant {
        // Checks:
        if (msg.sender != _arbiter) revert Escrow_CallerNotArbiter(msg.sender);
        if (sellerBps > BPS) revert Escrow_InvalidSellerBps(sellerBps);
        bytes32 word = _load(escrowId, escrow);
        Status status = _statusOf(word);
        if (status != Status.Disputed) revert Escrow_InvalidStatus(escrowId, status);

        uint256 sellerShare = (escrow.amount * sellerBps) / BPS;
        uint256 fee = (sellerShare * escrow.feeBps) / BPS;
        uint256 sellerAmount = sellerShare - fee;
        uint256 buyerAmount = escrow.amount - sellerShare;

        // Effects:
        _escrows[escrowId] = _withStatus(word, Status.Resolved);
        emit Resolved(escrowId, sellerBps, sellerAmount, buyerAmount, fee);

        // Interactions:
        _pay(escrow.seller, sellerAmount);
        if (fee != 0) _pay(_feeRecipient, fee);
        _pay(escrow.buyer, buyerAmount);
    }

    /*//////////////////////////////////////////////////////////////
                             SIGNED ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IAgentEscrow
    function assignSellerWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        address seller,
        uint40 deadline,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external {
        bytes32 structHash = keccak256(abi.encode(ASSIGN_SELLER_TYPEHASH, escrowId, seller, deadline, nonce, sigDeadline));
        _useSignature(signer, nonce, sigDeadline, structHash, signature);
        _assignSeller(escrowId, escrow, seller, deadline, signer);
    }

    /// @inheritdoc IAgentEscrow
    function deliverWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        bytes32 deliverableHash,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external {
        bytes32 structHash = keccak256(abi.encode(DELIVER_TYPEHASH, escrowId, deliverableHash, nonce, sigDeadline));
        _useSignature(signer, nonce, sigDeadline, structHash, signature);
        _deliver(escrowId, escrow, deliverableHash, signer);
    }

    /// @inheritdoc IAgentEscrow
    function releaseWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external nonReentrant {
        bytes32 structHash = keccak256(abi.encode(RELEASE_TYPEHASH, escrowId, nonce, sigDeadline));
        _useSignature(signer, nonce, sigDeadline, structHash, signature);
        _release(escrowId, escrow, signer);
    }

    /// @inheritdoc IAgentEscrow
    function refundWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external nonReentrant {
        bytes32 structHash = keccak256(abi.encode(REFUND_TYPEHASH, escrowId, nonce, sigDeadline));
        _useSignature(signer, nonce, sigDeadline, structHash, signature);
        _refund(escrowId, escrow, signer);
    }

    /// @inheritdoc IAgentEscrow
    function disputeWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        bytes32 reasonHash,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external {
        bytes32 structHash = keccak256(abi.encode(DISPUTE_TYPEHASH, escrowId, reasonHash, nonce, sigDeadline));
        _useSignature(signer, nonce, sigDeadline, structHash, signature);
        _dispute(escrowId, escrow, reasonHash, signer);
    }

    /// @inheritdoc IAgentEscrow
    function invalidateNonces(uint256 wordPos, uint256 mask) external {
        _nonceBitmaps[msg.sender][wordPos] |= mask;
        emit NoncesInvalidated(msg.sender, wordPos, mask);
    }

    /*//////////////////////////////////////////////////////////////
                                CREDITS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IAgentEscrow
    function withdrawCredit(address account) external nonReentrant {
        uint256 amount = _credits[account];
        if (amount == 0) revert Escrow_NoCredit(account);
        _credits[account] = 0;
        _totalCredits -= amount;
        emit CreditWithdrawn(account, amount);
        // Pays the credited account only, never another address: a blacklisted account's funds stay
        // frozen until the token lifts the blacklist, as the token intends.
        IERC20(token).safeTransfer(account, amount);
    }

    /*//////////////////////////////////////////////////////////////
                                 ADMIN
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IAgentEscrow
    function setFeeBps(uint16 feeBps_) external onlyOwner {
        if (feeBps_ > MAX_FEE_BPS) revert Escrow_FeeAboveCap(feeBps_, MAX_FEE_BPS);
        _feeBps = feeBps_;
        emit FeeUpdated(feeBps_);
    }

    /// @inheritdoc IAgentEscrow
    function setFeeRecipient(address feeRecipient_) external onlyOwner {
        if (feeRecipient_ == address(0)) revert Escrow_ZeroAddress();
        _feeRecipient = feeRecipient_;
        emit FeeRecipientUpdated(feeRecipient_);
    }

    /// @inheritdoc IAgentEscrow
    function setArbiter(address arbiter_) external onlyOwner {
        if (arbiter_ == address(0)) revert Escrow_ZeroAddress();
        _arbiter = arbiter_;
        emit ArbiterUpdated(arbiter_);
    }

    /// @inheritdoc IAgentEscrow
    function setOperator(address operator_) external onlyOwner {
        _operator = operator_;
        emit OperatorUpdated(operator_);
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IAgentEscrow
    function feeBps() external view returns (uint16) {
        return _feeBps;
    }

    /// @inheritdoc IAgentEscrow
    function feeRecipient() external view returns (address) {
        return _feeRecipient;
    }

    /// @inheritdoc IAgentEscrow
    function arbiter() external view returns (address) {
        return _arbiter;
    }

    /// @inheritdoc IAgentEscrow
    function operator() external view returns (address) {
        return _operator;
    }

    /// @inheritdoc IAgentEscrow
    function escrowState(bytes32 escrowId) external view returns (Status status, bytes32 termsHash) {
        bytes32 word = _escrows[escrowId];
        return (_statusOf(word), word & HASH_MASK);
    }

    /// @inheritdoc IAgentEscrow
    function isBounty(bytes32 escrowId) external view returns (bool) {
        return _escrows[escrowId] & BOUNTY_FLAG != 0;
    }

    /// @inheritdoc IAgentEscrow
    function isOperatorDelegated(bytes32 escrowId) external view returns (bool) {
        return _escrows[escrowId] & DELEGATED_FLAG != 0;
    }

    /// @inheritdoc IAgentEscrow
    function transferAuthorizationDigest(
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, address(this), value, validAfter, validBefore, nonce)
        );
        return MessageHashUtils.toTypedDataHash(IERC3009(token).DOMAIN_SEPARATOR(), structHash);
    }

    /// @inheritdoc IAgentEscrow
    function hashTerms(Escrow calldata escrow) external pure returns (bytes32) {
        return _hashTerms(escrow);
    }

    /// @inheritdoc IAgentEscrow
    function escrowIdOf(address buyer, bytes32 ref) public pure returns (bytes32) {
        return keccak256(abi.encode(buyer, ref));
    }

    /// @inheritdoc IAgentEscrow
    function fundingNonce(bytes32 escrowId, address seller, uint40 deadline, uint32 disputeWindow)
        public
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(escrowId, seller, deadline, disputeWindow));
    }

    /// @inheritdoc IAgentEscrow
    function isNonceUsed(address signer, uint256 nonce) external view returns (bool) {
        return _nonceBitmaps[signer][nonce >> 8] & (1 << (nonce & 0xff)) != 0;
    }

    /// @inheritdoc IAgentEscrow
    function creditOf(address account) external view returns (uint256) {
        return _credits[account];
    }

    /// @inheritdoc IAgentEscrow
    function totalCredits() external view returns (uint256) {
        return _totalCredits;
    }

    /// @inheritdoc IAgentEscrow
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /*//////////////////////////////////////////////////////////////
                            INTERNAL: MOVES
    //////////////////////////////////////////////////////////////*/

    /// @dev Opens the escrow `buyer` funds under `ref` and returns its id. The id is derived from the
    /// buyer, never taken from the caller as is: a third party that saw the ref cannot occupy the id.
    /// `flags` is DELEGATED_FLAG for an x402 payment, else zero; the bounty flag is set here.
    function _open(
        bytes32 ref,
        address buyer,
        address seller,
        uint256 amount,
        uint40 deadline,
        uint32 disputeWindow,
        bytes32 flags
    ) private returns (bytes32 escrowId) {
        // Checks:
        escrowId = escrowIdOf(buyer, ref);
        if (_escrows[escrowId] != 0) revert Escrow_AlreadyExists(escrowId);
        if (amount == 0 || amount > type(uint128).max) revert Escrow_InvalidAmount(amount);
        if (seller == buyer) revert Escrow_InvalidSeller(seller);
        _checkDeadline(deadline);
        if (disputeWindow > MAX_DISPUTE_WINDOW) revert Escrow_InvalidDisputeWindow(disputeWindow);

        // Effects:
        uint16 fee = _feeBps;
        Escrow memory escrow = Escrow({
            buyer: buyer,
            seller: seller,
            amount: amount,
            deadline: deadline,
            disputeWindow: disputeWindow,
            deliveredAt: 0,
            feeBps: fee
        });
        bytes32 word = _hashTerms(escrow) | flags;
        if (seller == address(0)) word |= BOUNTY_FLAG;
        _escrows[escrowId] = _withStatus(word, Status.Funded);
        emit Funded(escrowId, buyer, seller, ref, amount, deadline, disputeWindow, fee);
    }

    function _assignSeller(bytes32 escrowId, Escrow calldata escrow, address seller, uint40 deadline, address actor)
        private
    {
        // Checks:
        if (actor != escrow.buyer && actor != _operator) revert Escrow_CallerNotBuyerOrOperator(escrowId, actor);
        bytes32 word = _load(escrowId, escrow);
        Status status = _statusOf(word);
        if (status != Status.Funded) revert Escrow_InvalidStatus(escrowId, status);
        // The buyer chose the seller of a FIXED escrow: the operator must never redirect it.
        if (actor != escrow.buyer && word & BOUNTY_FLAG == 0) revert Escrow_NotBounty(escrowId);
        // A claim that lapsed without delivery re-opens the bounty.
        if (escrow.seller != address(0) && block.timestamp <= escrow.deadline) {
            revert Escrow_SellerAlreadyAssigned(escrowId, escrow.seller);
        }
        if (seller == address(0) || seller == escrow.buyer) revert Escrow_InvalidSeller(seller);
        _checkDeadline(deadline);

        // Effects:
        Escrow memory next = escrow;
        next.seller = seller;
        next.deadline = deadline;
        _escrows[escrowId] = _rehash(word, next, Status.Funded);
        emit SellerAssigned(escrowId, seller, deadline);
    }

    function _deliver(bytes32 escrowId, Escrow calldata escrow, bytes32 deliverableHash, address actor) private {
        // Checks:
        bytes32 word = _load(escrowId, escrow);
        Status status = _statusOf(word);
        if (status != Status.Funded) revert Escrow_InvalidStatus(escrowId, status);
        if (actor != escrow.seller) revert Escrow_CallerNotSeller(escrowId, actor);
        if (block.timestamp > escrow.deadline) revert Escrow_DeadlinePassed(escrowId, escrow.deadline);

        // Effects:
        Escrow memory next = escrow;
        next.deliveredAt = uint40(block.timestamp);
        _escrows[escrowId] = _rehash(word, next, Status.Delivered);
        emit Delivered(escrowId, deliverableHash);
    }

    function _release(bytes32 escrowId, Escrow calldata escrow, address actor) private {
        // Checks:
        bytes32 word = _load(escrowId, escrow);
        Status status = _statusOf(word);
        if (status == Status.Delivered) {
            // After the dispute window anyone may release: this is the auto-release.
            if (actor != escrow.buyer && block.timestamp < _disputeWindowEnd(escrow) && !_actsForBuyer(word, actor)) {
                revert Escrow_ReleaseNotAllowed(escrowId, actor);
            }
        } else if (status == Status.Funded || status == Status.Disputed) {
            if (actor != escrow.buyer && !_actsForBuyer(word, actor)) revert Escrow_CallerNotBuyer(escrowId, actor);
            if (escrow.seller == address(0)) revert Escrow_SellerNotAssigned(escrowId);
        } else {
            revert Escrow_InvalidStatus(escrowId, status);
        }

        uint256 fee = (escrow.amount * escrow.feeBps) / BPS;
        uint256 sellerAmount = escrow.amount - fee;

        // Effects:
        _escrows[escrowId] = _withStatus(word, Status.Released);
        emit Released(escrowId, actor, sellerAmount, fee);

        // Interactions:
        _pay(escrow.seller, sellerAmount);
        if (fee != 0) _pay(_feeRecipient, fee);
    }

    function _refund(bytes32 escrowId, Escrow calldata escrow, address actor) private {
        // Checks:
        bytes32 word = _load(escrowId, escrow);
        Status status = _statusOf(word);
        if (status == Status.Funded) {
            // Before delivery the buyer may cancel; the seller may always give the money back;
            // after the deadline anyone may return it.
            if (actor != escrow.buyer && actor != escrow.seller && block.timestamp <= escrow.deadline) {
                revert Escrow_RefundNotAllowed(escrowId, actor);
            }
        } else if (status == Status.Delivered || status == Status.Disputed) {
            if (actor != escrow.seller) revert Escrow_RefundNotAllowed(escrowId, actor);
        } else {
            revert Escrow_InvalidStatus(escrowId, status);
        }

        // Effects:
        _escrows[escrowId] = _withStatus(word, Status.Refunded);
        emit Refunded(escrowId, actor, escrow.amount);

        // Interactions:
        _pay(escrow.buyer, escrow.amount);
    }

    function _dispute(bytes32 escrowId, Escrow calldata escrow, bytes32 reasonHash, address actor) private {
        // Checks:
        bytes32 word = _load(escrowId, escrow);
        Status status = _statusOf(word);
        if (actor != escrow.buyer && actor != escrow.seller && !_actsForBuyer(word, actor)) {
            revert Escrow_CallerNotParty(escrowId, actor);
        }
        if (status == Status.Funded) {
            if (escrow.seller == address(0)) revert Escrow_SellerNotAssigned(escrowId);
            // A seller who missed the deadline cannot hold the buyer's refund hostage.
            if (block.timestamp > escrow.deadline) revert Escrow_DeadlinePassed(escrowId, escrow.deadline);
        } else if (status == Status.Delivered) {
            uint256 closesAt = _disputeWindowEnd(escrow);
            if (block.timestamp >= closesAt) revert Escrow_DisputeWindowClosed(escrowId, closesAt);
        } else {
            revert Escrow_InvalidStatus(escrowId, status);
        }

        // Effects:
        _escrows[escrowId] = _withStatus(word, Status.Disputed);
        emit Disputed(escrowId, actor, reasonHash);
    }

    /*//////////////////////////////////////////////////////////////
                           INTERNAL: HELPERS
    //////////////////////////////////////////////////////////////*/

    /// @dev Reads the escrow's word and checks that the caller's terms are the stored ones.
    function _load(bytes32 escrowId, Escrow calldata escrow) private view returns (bytes32 word) {
        word = _escrows[escrowId];
        if (word == 0) revert Escrow_NotFound(escrowId);
        if ((word ^ _hashTerms(escrow)) & HASH_MASK != 0) revert Escrow_TermsMismatch(escrowId);
    }

    /// @dev Pays `to`, or credits it when the token refuses the transfer (a blacklisted payee), so
    /// that one payee cannot block the other parties' payouts.
    function _pay(address to, uint256 amount) private {
        if (amount == 0) return;
        if (!IERC20(token).trySafeTransfer(to, amount)) {
            _credits[to] += amount;
            _totalCredits += amount;
            emit Credited(to, amount);
        }
    }

    /// @dev Verifies `signer`'s EIP-712 signature (EOA or ERC-1271) and spends its nonce.
    function _useSignature(
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes32 structHash,
        bytes calldata signature
    ) private {
        if (block.timestamp > sigDeadline) revert Escrow_SignatureExpired(sigDeadline);
        if (!SignatureChecker.isValidSignatureNowCalldata(signer, _hashTypedDataV4(structHash), signature)) {
            revert Escrow_InvalidSignature(signer);
        }
        uint256 bit = 1 << (nonce & 0xff);
        uint256 bits = _nonceBitmaps[signer][nonce >> 8];
        if (bits & bit != 0) revert Escrow_NonceUsed(signer, nonce);
        _nonceBitmaps[signer][nonce >> 8] = bits | bit;
    }

    /// @dev Whether `actor` is the operator and the escrow is delegated to it (an x402 payment's keyless
    /// buyer). Callers evaluate it only once the actor is known not to be the buyer, so the buyer's own
    /// moves never pay for the operator's storage read.
    function _actsForBuyer(bytes32 word, address actor) private view returns (bool) {
        return word & DELEGATED_FLAG != 0 && actor == _operator;
    }

    /// @dev Whether the token has already used `authorization`'s nonce and the signature is `from`'s
    /// transfer of exactly these fields to this contract. The time window is not checked: the token
    /// checked it when the authorization was used.
    function _isUsedAuthorizationOf(TransferAuthorization calldata authorization) private view returns (bool) {
        address from = authorization.from;
        if (!IERC3009(token).authorizationState(from, authorization.nonce)) return false;
        bytes32 digest = transferAuthorizationDigest(
            from, authorization.value, authorization.validAfter, authorization.validBefore, authorization.nonce
        );
        return SignatureChecker.isValidSignatureNowCalldata(from, digest, authorization.signature);
    }

    function _checkDeadline(uint40 deadline) private view {
        if (deadline <= block.timestamp || deadline > block.timestamp + MAX_DURATION) {
            revert Escrow_InvalidDeadline(deadline);
        }
    }

    function _disputeWindowEnd(Escrow calldata escrow) private pure returns (uint256) {
        return uint256(escrow.deliveredAt) + escrow.disputeWindow;
    }

    function _hashTerms(Escrow memory escrow) private pure returns (bytes32) {
        return keccak256(abi.encode(escrow)) & HASH_MASK;
    }

    /// @dev The word with its status replaced; the terms hash and the flags stay.
    function _withStatus(bytes32 word, Status status) private pure returns (bytes32) {
        return (word & ~bytes32(STATUS_MASK)) | bytes32(uint256(status));
    }

    /// @dev The word for new terms: their hash, the old word's flags, and `status`.
    function _rehash(bytes32 word, Escrow memory next, Status status) private pure returns (bytes32) {
        return _hashTerms(next) | (word & FLAGS) | bytes32(uint256(status));
    }

    function _statusOf(bytes32 word) private pure returns (Status) {
        return Status(uint8(uint256(word) & STATUS_MASK));
    }
}
