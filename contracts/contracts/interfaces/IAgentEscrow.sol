// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IAgentEscrow
/// @notice USDC escrow for the agent marketplace. A buyer funds an escrow for a seller (or, for a
/// bounty, for a seller assigned later); the seller delivers; the buyer releases, or anyone releases
/// once the dispute window after delivery has passed; an undelivered escrow is refunded to the buyer
/// once its deadline has passed; a dispute is settled by the arbiter with any split.
///
/// An escrow's id is `escrowIdOf(buyer, ref)`: the funder names a reference (`ref`, the API's
/// transaction uuid) and the contract binds it to the buyer. Pending references are public, so an id
/// the funder chose alone could be taken first by anyone (a squatted id); an id derived from the
/// buyer can only ever be used by that buyer. Two buyers funding the same `ref` open two escrows.
///
/// Storage holds one word per escrow: the hash of its terms with the status in the low byte. The
/// terms themselves travel in calldata (every call takes them back, as emitted in {Funded}) and in
/// events, which keeps funding at one new storage slot.
///
/// Every party action has a signed form (EIP-712) that anyone may submit, so agents without ETH can
/// act through a relayer. Signed forms use unordered per-signer nonces (a bitmap, as Permit2) and a
/// signature deadline.
///
/// Payouts that the token refuses (a blacklisted address) are credited to the payee instead of
/// reverting, so one party's blacklisting never locks the other party's funds.
///
/// An x402 payment (HTTP 402: an EIP-3009 `TransferWithAuthorization` to this contract with a random
/// nonce, as any stock x402 client signs it) funds an escrow through {fundWithTransfer}: the operator
/// submits it with the listing's terms, the signer is the buyer and the nonce is the ref. Such a
/// buyer holds no API key and sends no transactions, so the operator may release and dispute its
/// escrow for it ({isOperatorDelegated}).
interface IAgentEscrow {
    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice Lifecycle of an escrow. Released, Refunded and Resolved are terminal.
    enum Status {
        None,
        Funded,
        Delivered,
        Disputed,
        Released,
        Refunded,
        Resolved
    }

    /// @notice The terms of an escrow. Only their hash is stored; callers pass them back.
    /// @param buyer Who funded the escrow and receives refunds.
    /// @param seller Who delivers and is paid; zero while a bounty is unclaimed.
    /// @param amount Escrowed token amount (USDC has 6 decimals).
    /// @param deadline Unix time by which the seller must deliver; after it an undelivered escrow may
    /// be refunded by anyone.
    /// @param disputeWindow Seconds after delivery during which either party may dispute; after it
    /// anyone may release.
    /// @param deliveredAt Unix time of delivery; zero until delivered.
    /// @param feeBps Fee on the seller's share in basis points, fixed when the escrow was funded.
    struct Escrow {
        address buyer;
        address seller;
        uint256 amount;
        uint40 deadline;
        uint32 disputeWindow;
        uint40 deliveredAt;
        uint16 feeBps;
    }

    /// @notice A buyer's EIP-3009 `receiveWithAuthorization` signature over the funding, and the
    /// window in which it is valid (`validAfter < block.timestamp < validBefore`).
    struct FundingAuthorization {
        uint256 validAfter;
        uint256 validBefore;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// @notice A buyer's EIP-3009 `transferWithAuthorization` to this contract, as an x402 client signs
    /// it: `TransferWithAuthorization(from, to = this contract, value, validAfter, validBefore, nonce)`
    /// in the token's EIP-712 domain, with a nonce the client drew at random.
    /// @param from The signer: the escrow's buyer.
    /// @param value The amount paid: the escrow's amount.
    /// @param validAfter The authorization is valid only after this time (x402 clients sign now - 600).
    /// @param validBefore The authorization is valid only before this time.
    /// @param nonce The authorization's nonce: the escrow's ref, so its id is `escrowIdOf(from, nonce)`.
    /// @param signature `r || s || v` of an externally owned account, or what the ERC-1271 wallet at
    /// `from` accepts.
    struct TransferAuthorization {
        address from;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        bytes signature;
    }

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice An escrow was funded. Carries the full terms (deliveredAt is zero) and the funder's
    /// reference, so an indexer maps the escrow back to it (`escrowId == escrowIdOf(buyer, ref)`).
    event Funded(
        bytes32 indexed escrowId,
        address indexed buyer,
        address indexed seller,
        bytes32 ref,
        uint256 amount,
        uint40 deadline,
        uint32 disputeWindow,
        uint16 feeBps
    );

    /// @notice A seller was assigned to a bounty (first claim, or a re-opened claim), with the new
    /// delivery deadline.
    event SellerAssigned(bytes32 indexed escrowId, address indexed seller, uint40 deadline);

    /// @notice The seller delivered. The delivery time is the block's timestamp.
    event Delivered(bytes32 indexed escrowId, bytes32 deliverableHash);

    /// @notice A party disputed the escrow.
    event Disputed(bytes32 indexed escrowId, address indexed disputant, bytes32 reasonHash);

    /// @notice The escrow was released to the seller. `actor` is the buyer, or whoever triggered the
    /// release after the dispute window.
    event Released(bytes32 indexed escrowId, address indexed actor, uint256 sellerAmount, uint256 fee);

    /// @notice The escrow was refunded in full to the buyer.
    event Refunded(bytes32 indexed escrowId, address indexed actor, uint256 amount);

    /// @notice The arbiter settled a dispute: `sellerBps` of the amount went to the seller (less the
    /// fee), the rest back to the buyer.
    event Resolved(bytes32 indexed escrowId, uint16 sellerBps, uint256 sellerAmount, uint256 buyerAmount, uint256 fee);

    /// @notice A payout the token refused was credited to `account` instead.
    event Credited(address indexed account, uint256 amount);

    /// @notice Credited funds were paid out to their owner.
    event CreditWithdrawn(address indexed account, uint256 amount);

    /// @notice Signed-action nonces were cancelled by their signer.
    event NoncesInvalidated(address indexed signer, uint256 wordPos, uint256 mask);

    event FeeUpdated(uint16 feeBps);
    event FeeRecipientUpdated(address indexed feeRecipient);
    event ArbiterUpdated(address indexed arbiter);
    event OperatorUpdated(address indexed operator);

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The buyer has already funded an escrow under this ref: `escrowId == escrowIdOf(buyer, ref)`
    /// exists, whatever its status (ids are never reused). Only that buyer can cause it; another
    /// funder's escrow under the same ref has an id of its own.
    error Escrow_AlreadyExists(bytes32 escrowId);
    /// @notice No escrow has this id.
    error Escrow_NotFound(bytes32 escrowId);
    /// @notice The terms passed do not hash to the stored terms of this escrow.
    error Escrow_TermsMismatch(bytes32 escrowId);
    /// @notice The move is not allowed from the escrow's current status.
    error Escrow_InvalidStatus(bytes32 escrowId, Status status);
    /// @notice Amount is zero or above 2^128 - 1.
    error Escrow_InvalidAmount(uint256 amount);
    /// @notice Deadline is not in the future, or further than the maximum duration.
    error Escrow_InvalidDeadline(uint40 deadline);
    /// @notice Dispute window above the maximum.
    error Escrow_InvalidDisputeWindow(uint32 disputeWindow);
    /// @notice Seller is the buyer, or zero where a seller is required.
    error Escrow_InvalidSeller(address seller);
    /// @notice The move needs an assigned seller and this bounty has none.
    error Escrow_SellerNotAssigned(bytes32 escrowId);
    /// @notice The bounty's seller is assigned and its deadline has not passed.
    error Escrow_SellerAlreadyAssigned(bytes32 escrowId, address seller);
    /// @notice The operator may assign sellers only to escrows funded as bounties (without a seller).
    error Escrow_NotBounty(bytes32 escrowId);
    /// @notice Delivery, or a dispute before delivery, after the deadline.
    error Escrow_DeadlinePassed(bytes32 escrowId, uint40 deadline);
    /// @notice Dispute after the dispute window closed.
    error Escrow_DisputeWindowClosed(bytes32 escrowId, uint256 closedAt);
    /// @notice Caller must be the buyer.
    error Escrow_CallerNotBuyer(bytes32 escrowId, address caller);
    /// @notice Caller must be the seller.
    error Escrow_CallerNotSeller(bytes32 escrowId, address caller);
    /// @notice Caller must be the buyer or the seller.
    error Escrow_CallerNotParty(bytes32 escrowId, address caller);
    /// @notice Caller must be the buyer or the operator.
    error Escrow_CallerNotBuyerOrOperator(bytes32 escrowId, address caller);
    /// @notice Caller must be the arbiter.
    error Escrow_CallerNotArbiter(address caller);
    /// @notice Caller must be the operator.
    error Escrow_CallerNotOperator(address caller);
    /// @notice Only the buyer may release before the dispute window has passed.
    error Escrow_ReleaseNotAllowed(bytes32 escrowId, address caller);
    /// @notice Only the buyer (before delivery), the seller, or anyone after the deadline may refund.
    error Escrow_RefundNotAllowed(bytes32 escrowId, address caller);
    /// @notice Seller share above 10,000 basis points.
    error Escrow_InvalidSellerBps(uint16 sellerBps);
    /// @notice Fee above the immutable cap.
    error Escrow_FeeAboveCap(uint16 feeBps, uint16 maxFeeBps);
    /// @notice A zero address where one is required.
    error Escrow_ZeroAddress();
    /// @notice The signature's deadline has passed.
    error Escrow_SignatureExpired(uint256 sigDeadline);
    /// @notice The signature is not the named signer's.
    error Escrow_InvalidSignature(address signer);
    /// @notice The signer has used or cancelled this nonce.
    error Escrow_NonceUsed(address signer, uint256 nonce);
    /// @notice The account has no credit to withdraw.
    error Escrow_NoCredit(address account);

    /*//////////////////////////////////////////////////////////////
                                 FUNDING
    //////////////////////////////////////////////////////////////*/

    /// @notice Funds a new escrow from the caller's token balance (needs an allowance). The escrow's id
    /// is `escrowIdOf(msg.sender, ref)`: every later call names the escrow by that id.
    /// @dev Requirements:
    /// - the caller has not funded an escrow under `ref` before.
    /// - `0 < amount <= 2^128 - 1`.
    /// - `block.timestamp < deadline <= block.timestamp + MAX_DURATION`.
    /// - `disputeWindow <= MAX_DISPUTE_WINDOW`.
    /// - `seller` is not the caller; zero makes an unclaimed bounty.
    /// Emits a {Funded} event.
    function fund(bytes32 ref, address seller, uint256 amount, uint40 deadline, uint32 disputeWindow) external;

    /// @notice Funds a new escrow with the buyer's EIP-3009 `receiveWithAuthorization` signature, so
    /// anyone (a relayer) may submit it for a buyer who holds no ETH. The escrow's id is
    /// `escrowIdOf(buyer, ref)`.
    /// @dev The authorization's nonce must be `fundingNonce(escrowIdOf(buyer, ref), seller, deadline,
    /// disputeWindow)`: it binds the signature to the buyer, the ref and these terms, so a submitter
    /// cannot redirect the funds. The fee is not part of it: it comes out of the seller's share, at the
    /// rate in force at funding (at most `MAX_FEE_BPS`). Nobody else can take the escrow's id: a third
    /// party that funds the same ref first (with `fund` or its own authorization) opens an escrow of its
    /// own under another id, and this authorization still succeeds. It fails with
    /// {Escrow_AlreadyExists} only if the buyer itself has already funded under `ref`; the buyer's
    /// funds then do not move.
    /// Requirements: as {fund}, with `buyer` in place of the caller.
    /// Emits a {Funded} event.
    function fundWithAuthorization(
        bytes32 ref,
        address buyer,
        address seller,
        uint256 amount,
        uint40 deadline,
        uint32 disputeWindow,
        FundingAuthorization calldata authorization
    ) external;

    /// @notice Funds a new escrow with a buyer's x402 payment: an EIP-3009 `TransferWithAuthorization`
    /// of `authorization.value` from `authorization.from` to this contract. Operator only. The buyer is
    /// `authorization.from`, the amount `authorization.value` and the ref `authorization.nonce`, so the
    /// escrow's id is `escrowIdOf(from, nonce)` and an authorization funds at most one escrow, ever (a
    /// second call fails with {Escrow_AlreadyExists} and moves nothing). The escrow is delegated: the
    /// operator may release and dispute it for the buyer ({isOperatorDelegated}).
    /// @dev The buyer's signature binds the payee, the amount and the nonce, not the seller, the
    /// deadline or the dispute window: whoever submits it chooses those. Hence only the operator (the
    /// platform's relayer, which takes them from the listing the buyer paid for) may submit it; a copy
    /// of the authorization in anyone else's hands cannot open an escrow. The buyer thus trusts the
    /// operator to name the listing's seller, as any x402 payer trusts the server's `payTo`; the
    /// operator may then release early to that seller, and to no one else.
    ///
    /// Normally the contract calls the token's `transferWithAuthorization(from, this, value,
    /// validAfter, validBefore, nonce, signature)`, which pulls the funds. Anyone may submit the same
    /// authorization to the token directly first (it is a plain transfer to this contract): the funds
    /// then already sit here and the token refuses the second use. So that such a payment is not
    /// stranded, when the token refuses and `authorizationState(from, nonce)` is set, the contract
    /// checks the signature itself (against {transferAuthorizationDigest} under the token's domain,
    /// ERC-1271 for contract signers) and, if it is `from`'s, records the escrow without moving tokens.
    /// Otherwise the token's revert is passed through.
    ///
    /// The token sets that flag on any use of the nonce: the transfer of this authorization, its
    /// cancellation (`cancelAuthorization`), or another authorization the buyer signed with the same
    /// nonce (a transfer elsewhere, a `receiveWithAuthorization`). The contract cannot tell these
    /// apart, and recording an escrow whose funds never arrived would pay it out of other escrows.
    /// So before settling an authorization whose nonce is already used, the operator MUST have found
    /// the transaction that used it and seen there the token's `AuthorizationUsed(from, nonce)`
    /// immediately followed by its `Transfer(from, this contract, value)` (the pair the token's
    /// `transferWithAuthorization` emits), and MUST NOT settle when that transfer was a funding of
    /// this contract: a {Funded} event in that transaction of `from`'s escrow whose
    /// `fundingNonce(escrowId, seller, deadline, disputeWindow)` is `nonce` ({fundWithAuthorization}
    /// emits the same pair, and those funds are that escrow's). A buyer who cancelled, or spent the
    /// nonce elsewhere, gains nothing from it: nobody but the operator can call this function.
    ///
    /// Requirements:
    /// - the caller is the operator.
    /// - `seller` is neither zero (no bounty) nor `from`.
    /// - `from` has not funded an escrow under `nonce` before.
    /// - the amount, deadline and dispute window rules of {fund}.
    /// - the token accepts the authorization now, or its nonce is used and the signature is valid.
    /// Emits a {Funded} event with `ref = nonce`.
    /// @param seller The listing's seller.
    /// @param deadline Unix time by which the seller must deliver.
    /// @param disputeWindow Seconds after delivery during which either party may dispute.
    /// @param authorization The buyer's signed transfer to this contract.
    /// @return escrowId `escrowIdOf(authorization.from, authorization.nonce)`.
    function fundWithTransfer(
        address seller,
        uint40 deadline,
        uint32 disputeWindow,
        TransferAuthorization calldata authorization
    ) external returns (bytes32 escrowId);

    /*//////////////////////////////////////////////////////////////
                              PARTY ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Assigns the seller of a bounty and sets its delivery deadline.
    /// @dev Requirements:
    /// - status is Funded, and the escrow has no seller or its deadline has passed (a lapsed claim
    ///   re-opens).
    /// - caller is the buyer, or the operator if the escrow was funded as a bounty (without a seller):
    ///   the operator never re-assigns an escrow whose seller the buyer chose.
    /// - `seller` is neither zero nor the buyer; the deadline rules of {fund} hold.
    /// Emits a {SellerAssigned} event.
    function assignSeller(bytes32 escrowId, Escrow calldata escrow, address seller, uint40 deadline) external;

    /// @notice Records delivery, committing to the deliverable's hash.
    /// @dev Requirements: status is Funded; caller is the seller; `block.timestamp <= deadline`.
    /// Emits a {Delivered} event.
    function deliver(bytes32 escrowId, Escrow calldata escrow, bytes32 deliverableHash) external;

    /// @notice Pays the seller (less the fee, which goes to the fee recipient).
    /// @dev Requirements: the buyer, or the operator for a delegated escrow ({isOperatorDelegated}), may
    /// release from Funded (seller assigned), Delivered or Disputed; anyone may release from Delivered
    /// once `deliveredAt + disputeWindow` has passed.
    /// Emits a {Released} event.
    function release(bytes32 escrowId, Escrow calldata escrow) external;

    /// @notice Returns the whole amount to the buyer.
    /// @dev Requirements: from Funded, the buyer, the seller, or anyone once the deadline has passed;
    /// from Delivered or Disputed, the seller only.
    /// Emits a {Refunded} event.
    function refund(bytes32 escrowId, Escrow calldata escrow) external;

    /// @notice Opens a dispute, to be settled by the arbiter.
    /// @dev Requirements: caller is the buyer, the seller, or the operator for a delegated escrow
    /// ({isOperatorDelegated}); status is Funded with a seller assigned
    /// and the deadline not passed (after it the buyer is owed a refund), or Delivered with the
    /// dispute window still open.
    /// Emits a {Disputed} event.
    function dispute(bytes32 escrowId, Escrow calldata escrow, bytes32 reasonHash) external;

    /// @notice Settles a dispute: `sellerBps` of the amount to the seller (less the fee), the rest to
    /// the buyer.
    /// @dev Requirements: status is Disputed; caller is the arbiter; `sellerBps <= 10_000`.
    /// Emits a {Resolved} event.
    function resolve(bytes32 escrowId, Escrow calldata escrow, uint16 sellerBps) external;

    /*//////////////////////////////////////////////////////////////
                             SIGNED ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice {assignSeller} signed by the buyer (EIP-712 `AssignSeller`).
    function assignSellerWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        address seller,
        uint40 deadline,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external;

    /// @notice {deliver} signed by the seller (EIP-712 `Deliver`).
    function deliverWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        bytes32 deliverableHash,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external;

    /// @notice {release} signed by the buyer (EIP-712 `Release`).
    function releaseWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external;

    /// @notice {refund} signed by the buyer or the seller (EIP-712 `Refund`).
    function refundWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external;

    /// @notice {dispute} signed by the buyer or the seller (EIP-712 `Dispute`).
    function disputeWithSig(
        bytes32 escrowId,
        Escrow calldata escrow,
        bytes32 reasonHash,
        address signer,
        uint256 nonce,
        uint256 sigDeadline,
        bytes calldata signature
    ) external;

    /// @notice Cancels the caller's unused nonces: the bits of `mask` in word `wordPos`.
    /// Emits a {NoncesInvalidated} event.
    function invalidateNonces(uint256 wordPos, uint256 mask) external;

    /*//////////////////////////////////////////////////////////////
                                 CREDITS
    //////////////////////////////////////////////////////////////*/

    /// @notice Pays `account` its credited payouts. Anyone may call; funds go to `account` only.
    /// @dev Requirements: `account` has credit, and the token accepts the transfer now.
    /// Emits a {CreditWithdrawn} event.
    function withdrawCredit(address account) external;

    /*//////////////////////////////////////////////////////////////
                                 ADMIN
    //////////////////////////////////////////////////////////////*/

    /// @notice Sets the fee charged on sellers' shares of escrows funded from now on. Owner only.
    /// @dev Requirements: `feeBps <= MAX_FEE_BPS`. Emits a {FeeUpdated} event.
    function setFeeBps(uint16 feeBps) external;

    /// @notice Sets who receives fees. Owner only; not zero. Emits a {FeeRecipientUpdated} event.
    function setFeeRecipient(address feeRecipient) external;

    /// @notice Sets who settles disputes. Owner only; not zero. Emits an {ArbiterUpdated} event.
    function setArbiter(address arbiter) external;

    /// @notice Sets who may assign bounty sellers. Owner only; zero disables. Emits an {OperatorUpdated} event.
    function setOperator(address operator) external;

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice The escrowed token (USDC).
    function token() external view returns (address);

    /// @notice Upper bound of the fee, fixed at deployment.
    function MAX_FEE_BPS() external view returns (uint16);

    /// @notice Longest time from now to a delivery deadline.
    function MAX_DURATION() external view returns (uint40);

    /// @notice Longest dispute window.
    function MAX_DISPUTE_WINDOW() external view returns (uint32);

    function feeBps() external view returns (uint16);

    function feeRecipient() external view returns (address);

    function arbiter() external view returns (address);

    function operator() external view returns (address);

    /// @notice The escrow's status and the hash of its latest terms (kept once terminal, so an indexer can
    /// check its record of a finished escrow too).
    function escrowState(bytes32 escrowId) external view returns (Status status, bytes32 termsHash);

    /// @notice The hash stored for these terms, status byte cleared. Compare with {escrowState}.
    function hashTerms(Escrow calldata escrow) external pure returns (bytes32);

    /// @notice The id of the escrow that `buyer` funds under `ref`: `keccak256(abi.encode(buyer, ref))`.
    /// Clients compute it off chain to act on the escrow before {Funded} is indexed.
    function escrowIdOf(address buyer, bytes32 ref) external pure returns (bytes32);

    /// @notice The EIP-3009 nonce a buyer signs to fund these terms with {fundWithAuthorization};
    /// `escrowId` is `escrowIdOf(buyer, ref)`, so the nonce binds the buyer and the ref too.
    function fundingNonce(bytes32 escrowId, address seller, uint40 deadline, uint32 disputeWindow)
        external
        pure
        returns (bytes32);

    /// @notice Whether the escrow was funded as a bounty (without a seller), so the operator may
    /// assign its seller.
    function isBounty(bytes32 escrowId) external view returns (bool);

    /// @notice Whether the escrow was funded with an x402 payment ({fundWithTransfer}), so the operator
    /// may act for its buyer in {release} and {dispute} (and only there: refunds, assignments and
    /// everything else follow the usual rules, and funds only ever go to the buyer, the seller and the
    /// fee recipient).
    function isOperatorDelegated(bytes32 escrowId) external view returns (bool);

    /// @notice The EIP-712 digest, under the token's domain, of `TransferWithAuthorization(from,
    /// to = this contract, value, validAfter, validBefore, nonce)`: what `from` signs to pay this
    /// contract and what {fundWithTransfer} checks when the token has already used the nonce.
    function transferAuthorizationDigest(
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) external view returns (bytes32);

    /// @notice Whether `signer` has used or cancelled `nonce`.
    function isNonceUsed(address signer, uint256 nonce) external view returns (bool);

    /// @notice Payouts credited to `account` and not yet withdrawn.
    function creditOf(address account) external view returns (uint256);

    /// @notice Sum of all unwithdrawn credits.
    function totalCredits() external view returns (uint256);

    /// @notice The EIP-712 domain separator of the signed actions.
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
