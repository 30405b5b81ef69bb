// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {IERC3009} from "../interfaces/IERC3009.sol";
import {MockUSDC} from "../mocks/MockUSDC.sol";
import {ERC1271Wallet} from "./ERC1271Wallet.sol";
import {Test} from "./utils/Test.sol";

/// @dev Shared fixture: signing helpers that rebuild every EIP-712 digest from literal type strings,
/// independently of the token's own constants.
abstract contract MockUSDCFixture is Test {
    // FiatToken v2.2's constants, as published in its source.
    bytes32 internal constant FIAT_PERMIT_TYPEHASH =
        0x6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c9;
    bytes32 internal constant FIAT_TRANSFER_TYPEHASH =
        0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267;
    bytes32 internal constant FIAT_RECEIVE_TYPEHASH =
        0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8;
    bytes32 internal constant FIAT_CANCEL_TYPEHASH =
        0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429;

    uint256 internal constant FLAG = 1 << 255;
    uint256 internal constant MAX_SUPPLY = FLAG - 1;

    MockUSDC internal usdc;

    /// @dev Base slot of the balance-and-blacklist mapping, found by probing (see {_findBalanceSlotBase}).
    uint256 internal balanceSlotBase;

    function _deploy(address owner) internal {
        usdc = new MockUSDC(owner);
        balanceSlotBase = _findBalanceSlotBase();
    }

    /// @dev Records the single slot `balanceOf` reads and finds which mapping base slot it hashes from.
    function _findBalanceSlotBase() internal returns (uint256) {
        address probe = address(0xBEEF);
        vm.record();
        usdc.balanceOf(probe);
        (bytes32[] memory reads,) = vm.accesses(address(usdc));
        assertEq(reads.length, 1, "balanceOf reads exactly one slot");
        for (uint256 base; base < 64; ++base) {
            if (keccak256(abi.encode(probe, base)) == reads[0]) return base;
        }
        revert("balance mapping slot not found");
    }

    function _balanceWord(address account) internal view returns (uint256) {
        return uint256(vm.load(address(usdc), keccak256(abi.encode(account, balanceSlotBase))));
    }

    function _domainSeparator() internal view returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("USD Coin"),
                keccak256("2"),
                block.chainid,
                address(usdc)
            )
        );
    }

    function _sign(uint256 key, bytes32 structHash) internal view returns (uint8 v, bytes32 r, bytes32 s) {
        return vm.sign(key, keccak256(abi.encodePacked("\x19\x01", _domainSeparator(), structHash)));
    }

    function _signPermit(uint256 key, address owner, address spender, uint256 value, uint256 nonce, uint256 deadline)
        internal
        view
        returns (uint8, bytes32, bytes32)
    {
        return _sign(key, keccak256(abi.encode(FIAT_PERMIT_TYPEHASH, owner, spender, value, nonce, deadline)));
    }

    function _signAuthorization(
        uint256 key,
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) internal view returns (uint8, bytes32, bytes32) {
        return _sign(key, keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce)));
    }

    function _signCancel(uint256 key, address authorizer, bytes32 nonce)
        internal
        view
        returns (uint8, bytes32, bytes32)
    {
        return _sign(key, keccak256(abi.encode(FIAT_CANCEL_TYPEHASH, authorizer, nonce)));
    }
}

contract MockUSDCTest is MockUSDCFixture {
    uint256 internal constant START = 1_000e6;
    uint256 internal constant NOW = 1_700_000_000;
    bytes32 internal constant NONCE = keccak256("nonce-1");

    address internal owner;
    address internal blacklister;
    address internal alice;
    uint256 internal aliceKey;
    address internal bob;
    address internal carol;
    address internal relayer;
    address internal mallory;
    uint256 internal malloryKey;

    function setUp() public {
        vm.warp(NOW);
        owner = makeAddr("owner");
        blacklister = makeAddr("blacklister");
        (alice, aliceKey) = makeAccount("alice");
        bob = makeAddr("bob");
        carol = makeAddr("carol");
        relayer = makeAddr("relayer");
        (mallory, malloryKey) = makeAccount("mallory");

        _deploy(owner);
        vm.prank(owner);
        usdc.updateBlacklister(blacklister);
        usdc.mint(alice, START);
    }

    /*------------------------------ helpers ------------------------------*/

    function _blacklist(address account) internal {
        vm.prank(blacklister);
        usdc.blacklist(account);
    }

    /// @dev alice's signed authorization moving `value` to `to`, valid for the next hour.
    function _authorize(bytes32 typeHash, address to, uint256 value)
        internal
        view
        returns (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s)
    {
        validAfter = NOW - 1;
        validBefore = NOW + 1 hours;
        (v, r, s) = _signAuthorization(aliceKey, typeHash, alice, to, value, validAfter, validBefore, NONCE);
    }

    function _transferWithAuthorization(address to, uint256 value) internal {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, to, value);
        vm.prank(relayer);
        usdc.transferWithAuthorization(alice, to, value, validAfter, validBefore, NONCE, v, r, s);
    }

    function _receiveWithAuthorization(address to, uint256 value) internal {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_RECEIVE_TYPEHASH, to, value);
        vm.prank(to);
        usdc.receiveWithAuthorization(alice, to, value, validAfter, validBefore, NONCE, v, r, s);
    }

    function _cancel(uint256 key, address authorizer, bytes32 nonce) internal {
        (uint8 v, bytes32 r, bytes32 s) = _signCancel(key, authorizer, nonce);
        vm.prank(relayer);
        usdc.cancelAuthorization(authorizer, nonce, v, r, s);
    }

    /*------------------------------ metadata ------------------------------*/

    function test_Metadata_MatchesUSDC() public view {
        assertEq(keccak256(bytes(usdc.name())), keccak256("USD Coin"), "name");
        assertEq(keccak256(bytes(usdc.symbol())), keccak256("USDC"), "symbol");
        assertEq(usdc.decimals(), 6, "decimals");
        assertEq(usdc.totalSupply(), START, "total supply after setUp mint");
        assertEq(usdc.owner(), owner, "owner");
        assertEq(usdc.blacklister(), blacklister, "blacklister");
    }

    function test_TypeHashes_MatchFiatTokenV2_2() public view {
        assertEq(usdc.PERMIT_TYPEHASH(), FIAT_PERMIT_TYPEHASH, "PERMIT_TYPEHASH");
        assertEq(usdc.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), FIAT_TRANSFER_TYPEHASH, "TRANSFER_WITH_AUTH_TYPEHASH");
        assertEq(usdc.RECEIVE_WITH_AUTHORIZATION_TYPEHASH(), FIAT_RECEIVE_TYPEHASH, "RECEIVE_WITH_AUTH_TYPEHASH");
        assertEq(usdc.CANCEL_AUTHORIZATION_TYPEHASH(), FIAT_CANCEL_TYPEHASH, "CANCEL_AUTHORIZATION_TYPEHASH");
        assertEq(
            FIAT_TRANSFER_TYPEHASH,
            keccak256(
                "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
            ),
            "transfer type string"
        );
        assertEq(
            FIAT_RECEIVE_TYPEHASH,
            keccak256(
                "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
            ),
            "receive type string"
        );
        assertEq(
            FIAT_CANCEL_TYPEHASH,
            keccak256("CancelAuthorization(address authorizer,bytes32 nonce)"),
            "cancel type string"
        );
    }

    function test_DomainSeparator_IsUSDCNameVersion2() public view {
        assertEq(usdc.DOMAIN_SEPARATOR(), _domainSeparator(), "DOMAIN_SEPARATOR");
        (, string memory name, string memory version, uint256 chainId, address verifyingContract,,) =
            usdc.eip712Domain();
        assertEq(keccak256(bytes(name)), keccak256("USD Coin"), "EIP-712 name");
        assertEq(keccak256(bytes(version)), keccak256("2"), "EIP-712 version");
        assertEq(chainId, block.chainid, "EIP-712 chainId");
        assertEq(verifyingContract, address(usdc), "EIP-712 verifyingContract");
    }

    function test_GivenChainIdChanged_DomainSeparatorFollows() public {
        bytes32 before = usdc.DOMAIN_SEPARATOR();
        vm.chainId(84532);
        assertEq(usdc.DOMAIN_SEPARATOR(), _domainSeparator(), "rebuilt for the new chain");
        assertTrue(usdc.DOMAIN_SEPARATOR() != before, "differs from the old chain's");
    }

    /*------------------------------ mint ------------------------------*/

    function test_Mint_WhenCalledByAnyone_CreditsRecipientAndSupply() public {
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(address(0), bob, 5e6);
        vm.prank(mallory);
        usdc.mint(bob, 5e6);
        assertEq(usdc.balanceOf(bob), 5e6, "bob credited");
        assertEq(usdc.totalSupply(), START + 5e6, "supply grew");
    }

    function test_RevertWhen_MintToZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InvalidReceiver.selector, address(0)));
        usdc.mint(address(0), 1);
    }

    function test_RevertWhen_MintExceedsSupplyCap() public {
        usdc.mint(bob, MAX_SUPPLY - START);
        assertEq(usdc.totalSupply(), MAX_SUPPLY, "supply at the cap");
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_SupplyCapExceeded.selector, 1));
        usdc.mint(bob, 1);
    }

    function test_RevertWhen_MintAmountWouldOverflow() public {
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_SupplyCapExceeded.selector, type(uint256).max));
        usdc.mint(bob, type(uint256).max);
    }

    /*------------------------------ transfer ------------------------------*/

    function test_Transfer_MovesFundsAndEmits() public {
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(alice, bob, 40e6);
        vm.prank(alice);
        assertTrue(usdc.transfer(bob, 40e6), "returns true");
        assertEq(usdc.balanceOf(alice), START - 40e6, "alice debited");
        assertEq(usdc.balanceOf(bob), 40e6, "bob credited");
        assertEq(usdc.totalSupply(), START, "supply unchanged");
    }

    function test_Transfer_WhenToSelf_KeepsBalance() public {
        vm.prank(alice);
        usdc.transfer(alice, 400e6);
        assertEq(usdc.balanceOf(alice), START, "self-transfer is a no-op");
    }

    function test_Transfer_WhenZeroValue_Succeeds() public {
        vm.prank(bob);
        assertTrue(usdc.transfer(carol, 0), "zero transfer from an empty account");
        assertEq(usdc.balanceOf(carol), 0, "carol unchanged");
    }

    function test_RevertWhen_TransferExceedsBalance() public {
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, alice, START, START + 1)
        );
        vm.prank(alice);
        usdc.transfer(bob, START + 1);
    }

    function test_RevertWhen_TransferToZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InvalidReceiver.selector, address(0)));
        vm.prank(alice);
        usdc.transfer(address(0), 1);
    }

    /*------------------------------ approve / transferFrom ------------------------------*/

    function test_Approve_SetsAllowanceAndEmits() public {
        vm.expectEmit(address(usdc));
        emit IERC20.Approval(alice, bob, 7e6);
        vm.prank(alice);
        assertTrue(usdc.approve(bob, 7e6), "returns true");
        assertEq(usdc.allowance(alice, bob), 7e6, "allowance set");
    }

    function test_RevertWhen_ApproveZeroSpender() public {
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InvalidSpender.selector, address(0)));
        vm.prank(alice);
        usdc.approve(address(0), 1);
    }

    function test_TransferFrom_GivenFiniteAllowance_DecrementsAllowance() public {
        vm.prank(alice);
        usdc.approve(bob, 100e6);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(alice, carol, 60e6);
        vm.prank(bob);
        assertTrue(usdc.transferFrom(alice, carol, 60e6), "returns true");
        assertEq(usdc.allowance(alice, bob), 40e6, "allowance decremented");
        assertEq(usdc.balanceOf(alice), START - 60e6, "alice debited");
        assertEq(usdc.balanceOf(carol), 60e6, "carol credited");
    }

    function test_TransferFrom_GivenInfiniteAllowance_DoesNotDecrement() public {
        vm.prank(alice);
        usdc.approve(bob, type(uint256).max);
        vm.prank(bob);
        usdc.transferFrom(alice, carol, START);
        assertEq(usdc.allowance(alice, bob), type(uint256).max, "infinite allowance untouched");
        assertEq(usdc.balanceOf(carol), START, "carol credited");
    }

    function test_RevertWhen_TransferFromExceedsAllowance() public {
        vm.prank(alice);
        usdc.approve(bob, 10e6);
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, bob, 10e6, 10e6 + 1));
        vm.prank(bob);
        usdc.transferFrom(alice, carol, 10e6 + 1);
    }

    function test_RevertWhen_TransferFromExceedsBalance() public {
        vm.prank(alice);
        usdc.approve(bob, type(uint256).max);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, alice, START, START + 1)
        );
        vm.prank(bob);
        usdc.transferFrom(alice, carol, START + 1);
    }

    function test_RevertWhen_TransferFromZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InvalidSender.selector, address(0)));
        vm.prank(bob);
        usdc.transferFrom(address(0), carol, 0);
    }

    /*------------------------------ permit ------------------------------*/

    function test_Permit_GivenValidSignature_SetsAllowanceAndBumpsNonce() public {
        uint256 deadline = NOW + 1 hours;
        (uint8 v, bytes32 r, bytes32 s) = _signPermit(aliceKey, alice, bob, 50e6, 0, deadline);
        vm.expectEmit(address(usdc));
        emit IERC20.Approval(alice, bob, 50e6);
        vm.prank(relayer);
        usdc.permit(alice, bob, 50e6, deadline, v, r, s);
        assertEq(usdc.allowance(alice, bob), 50e6, "allowance set by permit");
        assertEq(usdc.nonces(alice), 1, "nonce incremented");
    }

    function test_Permit_WhenDeadlineIsNow_Succeeds() public {
        (uint8 v, bytes32 r, bytes32 s) = _signPermit(aliceKey, alice, bob, 1, 0, NOW);
        usdc.permit(alice, bob, 1, NOW, v, r, s);
        assertEq(usdc.allowance(alice, bob), 1, "valid on its deadline");
    }

    function test_RevertWhen_PermitExpired() public {
        (uint8 v, bytes32 r, bytes32 s) = _signPermit(aliceKey, alice, bob, 1, 0, NOW - 1);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_PermitExpired.selector, NOW - 1));
        usdc.permit(alice, bob, 1, NOW - 1, v, r, s);
    }

    function test_RevertWhen_PermitSignedByWrongSigner() public {
        (uint8 v, bytes32 r, bytes32 s) = _signPermit(malloryKey, alice, bob, 1, 0, NOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        usdc.permit(alice, bob, 1, NOW, v, r, s);
    }

    function test_RevertWhen_PermitValueDiffersFromSigned() public {
        (uint8 v, bytes32 r, bytes32 s) = _signPermit(aliceKey, alice, bob, 1, 0, NOW);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        usdc.permit(alice, bob, 2, NOW, v, r, s);
    }

    function test_RevertWhen_PermitReplayed() public {
        (uint8 v, bytes32 r, bytes32 s) = _signPermit(aliceKey, alice, bob, 1, 0, NOW);
        usdc.permit(alice, bob, 1, NOW, v, r, s);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        usdc.permit(alice, bob, 1, NOW, v, r, s);
        assertEq(usdc.nonces(alice), 1, "nonce used once");
    }

    /*------------------------------ transferWithAuthorization ------------------------------*/

    function test_GivenValidAuthorization_WhenSubmittedByRelayer_MovesFunds() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 25e6);
        vm.expectEmit(address(usdc));
        emit IERC3009.AuthorizationUsed(alice, NONCE);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(alice, bob, 25e6);
        vm.prank(relayer);
        usdc.transferWithAuthorization(alice, bob, 25e6, validAfter, validBefore, NONCE, v, r, s);
        assertEq(usdc.balanceOf(alice), START - 25e6, "alice debited");
        assertEq(usdc.balanceOf(bob), 25e6, "bob credited");
        assertEq(usdc.balanceOf(relayer), 0, "relayer untouched");
        assertTrue(usdc.authorizationState(alice, NONCE), "nonce marked used");
    }

    function test_GivenFutureAuthorization_WhenTimeReachesWindow_MovesFunds() public {
        uint256 validAfter = NOW + 100;
        uint256 validBefore = NOW + 200;
        (uint8 v, bytes32 r, bytes32 s) =
            _signAuthorization(aliceKey, FIAT_TRANSFER_TYPEHASH, alice, bob, 1e6, validAfter, validBefore, NONCE);
        vm.warp(validAfter + 1);
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
        assertEq(usdc.balanceOf(bob), 1e6, "bob credited one second after validAfter");
    }

    function test_RevertWhen_TransferAuthorizationNotYetValid() public {
        // validAfter == block.timestamp is not yet valid: FiatToken requires block.timestamp > validAfter.
        (uint8 v, bytes32 r, bytes32 s) =
            _signAuthorization(aliceKey, FIAT_TRANSFER_TYPEHASH, alice, bob, 1e6, NOW, NOW + 1 hours, NONCE);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationNotYetValid.selector, NOW));
        usdc.transferWithAuthorization(alice, bob, 1e6, NOW, NOW + 1 hours, NONCE, v, r, s);
    }

    function test_RevertWhen_TransferAuthorizationExpired() public {
        // validBefore == block.timestamp is expired: FiatToken requires block.timestamp < validBefore.
        (uint8 v, bytes32 r, bytes32 s) =
            _signAuthorization(aliceKey, FIAT_TRANSFER_TYPEHASH, alice, bob, 1e6, 0, NOW, NONCE);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationExpired.selector, NOW));
        usdc.transferWithAuthorization(alice, bob, 1e6, 0, NOW, NONCE, v, r, s);
    }

    function test_RevertWhen_TransferAuthorizationReplayed() public {
        _transferWithAuthorization(bob, 1e6);
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 1e6);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationUsedOrCanceled.selector, alice, NONCE));
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
        assertEq(usdc.balanceOf(bob), 1e6, "paid once");
    }

    function test_RevertWhen_TransferAuthorizationCanceled() public {
        _cancel(aliceKey, alice, NONCE);
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 1e6);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationUsedOrCanceled.selector, alice, NONCE));
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
    }

    function test_RevertWhen_TransferAuthorizationSignedByWrongSigner() public {
        (uint8 v, bytes32 r, bytes32 s) =
            _signAuthorization(malloryKey, FIAT_TRANSFER_TYPEHASH, alice, mallory, 1e6, 0, NOW + 1, NONCE);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        usdc.transferWithAuthorization(alice, mallory, 1e6, 0, NOW + 1, NONCE, v, r, s);
    }

    function test_RevertWhen_TransferAuthorizationRedirected() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 1e6);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        usdc.transferWithAuthorization(alice, mallory, 1e6, validAfter, validBefore, NONCE, v, r, s);
    }

    function test_RevertWhen_TransferSubmittedWithReceiveSignature() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_RECEIVE_TYPEHASH, bob, 1e6);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        vm.prank(relayer);
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
    }

    /*------------------------------ transferWithAuthorization, bytes signature ------------------------------*/

    function test_GivenBytesSignature_WhenSubmittedByRelayer_MovesFunds() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 25e6);
        vm.expectEmit(address(usdc));
        emit IERC3009.AuthorizationUsed(alice, NONCE);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(alice, bob, 25e6);
        vm.prank(relayer);
        usdc.transferWithAuthorization(alice, bob, 25e6, validAfter, validBefore, NONCE, abi.encodePacked(r, s, v));
        assertEq(usdc.balanceOf(alice), START - 25e6, "alice debited");
        assertEq(usdc.balanceOf(bob), 25e6, "bob credited");
        assertTrue(usdc.authorizationState(alice, NONCE), "nonce marked used");
    }

    /// @dev One nonce, two forms: a signature used through one overload is spent for the other.
    function test_RevertWhen_BytesSignatureReplayedThroughTheVRSForm() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 1e6);
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, abi.encodePacked(r, s, v));
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationUsedOrCanceled.selector, alice, NONCE));
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
        assertEq(usdc.balanceOf(bob), 1e6, "paid once");
    }

    function test_RevertWhen_BytesSignatureMalformedOrWrong() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 1e6);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, abi.encodePacked(r, s));
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        usdc.transferWithAuthorization(alice, mallory, 1e6, validAfter, validBefore, NONCE, abi.encodePacked(r, s, v));
        assertFalse(usdc.authorizationState(alice, NONCE), "nonce unused");
    }

    function test_RevertWhen_BytesSignatureOutsideItsWindow() public {
        (uint8 v, bytes32 r, bytes32 s) =
            _signAuthorization(aliceKey, FIAT_TRANSFER_TYPEHASH, alice, bob, 1e6, 0, NOW, NONCE);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationExpired.selector, NOW));
        usdc.transferWithAuthorization(alice, bob, 1e6, 0, NOW, NONCE, abi.encodePacked(r, s, v));
    }

    /// @dev As FiatToken v2.2: a `from` with code is asked through ERC-1271.
    function test_GivenERC1271Wallet_WhenItsOwnerSigned_MovesTheWalletsFunds() public {
        ERC1271Wallet wallet = new ERC1271Wallet(alice);
        usdc.mint(address(wallet), 5e6);
        uint256 validBefore = NOW + 1 hours;
        (uint8 v, bytes32 r, bytes32 s) = _signAuthorization(
            aliceKey, FIAT_TRANSFER_TYPEHASH, address(wallet), bob, 5e6, 0, validBefore, NONCE
        );
        usdc.transferWithAuthorization(address(wallet), bob, 5e6, 0, validBefore, NONCE, abi.encodePacked(r, s, v));
        assertEq(usdc.balanceOf(bob), 5e6, "bob paid from the wallet");

        (v, r, s) = _signAuthorization(
            malloryKey, FIAT_TRANSFER_TYPEHASH, address(wallet), mallory, 1, 0, validBefore, keccak256("n2")
        );
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        usdc.transferWithAuthorization(
            address(wallet), mallory, 1, 0, validBefore, keccak256("n2"), abi.encodePacked(r, s, v)
        );
    }

    function test_RevertWhen_BytesTransferWithAuthorizationFromBlacklisted() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 1e6);
        _blacklist(alice);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, alice));
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, abi.encodePacked(r, s, v));
    }

    /*------------------------------ receiveWithAuthorization ------------------------------*/

    function test_GivenValidAuthorization_WhenReceivedByPayee_MovesFunds() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_RECEIVE_TYPEHASH, bob, 25e6);
        vm.expectEmit(address(usdc));
        emit IERC3009.AuthorizationUsed(alice, NONCE);
        vm.expectEmit(address(usdc));
        emit IERC20.Transfer(alice, bob, 25e6);
        vm.prank(bob);
        usdc.receiveWithAuthorization(alice, bob, 25e6, validAfter, validBefore, NONCE, v, r, s);
        assertEq(usdc.balanceOf(alice), START - 25e6, "alice debited");
        assertEq(usdc.balanceOf(bob), 25e6, "bob credited");
        assertTrue(usdc.authorizationState(alice, NONCE), "nonce marked used");
    }

    function test_RevertWhen_ReceiveSubmittedByNonPayee() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_RECEIVE_TYPEHASH, bob, 1e6);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_CallerMustBePayee.selector, relayer, bob));
        vm.prank(relayer);
        usdc.receiveWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
        assertFalse(usdc.authorizationState(alice, NONCE), "nonce still unused");
    }

    function test_RevertWhen_ReceiveAuthorizationNotYetValid() public {
        (uint8 v, bytes32 r, bytes32 s) =
            _signAuthorization(aliceKey, FIAT_RECEIVE_TYPEHASH, alice, bob, 1e6, NOW, NOW + 1 hours, NONCE);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationNotYetValid.selector, NOW));
        vm.prank(bob);
        usdc.receiveWithAuthorization(alice, bob, 1e6, NOW, NOW + 1 hours, NONCE, v, r, s);
    }

    function test_RevertWhen_ReceiveAuthorizationExpired() public {
        (uint8 v, bytes32 r, bytes32 s) =
            _signAuthorization(aliceKey, FIAT_RECEIVE_TYPEHASH, alice, bob, 1e6, 0, NOW, NONCE);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationExpired.selector, NOW));
        vm.prank(bob);
        usdc.receiveWithAuthorization(alice, bob, 1e6, 0, NOW, NONCE, v, r, s);
    }

    function test_RevertWhen_ReceiveAuthorizationReplayed() public {
        _receiveWithAuthorization(bob, 1e6);
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_RECEIVE_TYPEHASH, bob, 1e6);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationUsedOrCanceled.selector, alice, NONCE));
        vm.prank(bob);
        usdc.receiveWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
        assertEq(usdc.balanceOf(bob), 1e6, "paid once");
    }

    function test_RevertWhen_ReceiveAuthorizationCanceled() public {
        _cancel(aliceKey, alice, NONCE);
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_RECEIVE_TYPEHASH, bob, 1e6);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationUsedOrCanceled.selector, alice, NONCE));
        vm.prank(bob);
        usdc.receiveWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
    }

    function test_RevertWhen_ReceiveAuthorizationSignedByWrongSigner() public {
        (uint8 v, bytes32 r, bytes32 s) =
            _signAuthorization(malloryKey, FIAT_RECEIVE_TYPEHASH, alice, mallory, 1e6, 0, NOW + 1, NONCE);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        vm.prank(mallory);
        usdc.receiveWithAuthorization(alice, mallory, 1e6, 0, NOW + 1, NONCE, v, r, s);
    }

    function test_RevertWhen_ReceiveSubmittedWithTransferSignature() public {
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 1e6);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        vm.prank(bob);
        usdc.receiveWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
    }

    /*------------------------------ cancelAuthorization ------------------------------*/

    function test_CancelAuthorization_GivenValidSignature_MarksNonceAndEmits() public {
        (uint8 v, bytes32 r, bytes32 s) = _signCancel(aliceKey, alice, NONCE);
        vm.expectEmit(address(usdc));
        emit IERC3009.AuthorizationCanceled(alice, NONCE);
        vm.prank(relayer);
        usdc.cancelAuthorization(alice, NONCE, v, r, s);
        assertTrue(usdc.authorizationState(alice, NONCE), "nonce marked canceled");
        assertFalse(usdc.authorizationState(alice, keccak256("other")), "other nonces untouched");
    }

    function test_RevertWhen_CancelAuthorizationTwice() public {
        _cancel(aliceKey, alice, NONCE);
        (uint8 v, bytes32 r, bytes32 s) = _signCancel(aliceKey, alice, NONCE);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationUsedOrCanceled.selector, alice, NONCE));
        usdc.cancelAuthorization(alice, NONCE, v, r, s);
    }

    function test_RevertWhen_CancelAuthorizationOfUsedNonce() public {
        _transferWithAuthorization(bob, 1e6);
        (uint8 v, bytes32 r, bytes32 s) = _signCancel(aliceKey, alice, NONCE);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_AuthorizationUsedOrCanceled.selector, alice, NONCE));
        usdc.cancelAuthorization(alice, NONCE, v, r, s);
    }

    function test_RevertWhen_CancelAuthorizationSignedByWrongSigner() public {
        (uint8 v, bytes32 r, bytes32 s) = _signCancel(malloryKey, alice, NONCE);
        vm.expectRevert(MockUSDC.MockUSDC_InvalidSignature.selector);
        usdc.cancelAuthorization(alice, NONCE, v, r, s);
        assertFalse(usdc.authorizationState(alice, NONCE), "nonce still unused");
    }

    function test_CancelAuthorization_GivenAuthorizerBlacklisted_Succeeds() public {
        _blacklist(alice);
        _cancel(aliceKey, alice, NONCE);
        assertTrue(usdc.authorizationState(alice, NONCE), "blacklisted authorizer may cancel, as in USDC");
    }

    /*------------------------------ blacklist: roles ------------------------------*/

    function test_Blacklist_WhenCalledByBlacklister_FlagsAndEmits() public {
        vm.expectEmit(address(usdc));
        emit MockUSDC.Blacklisted(alice);
        _blacklist(alice);
        assertTrue(usdc.isBlacklisted(alice), "alice blacklisted");
        assertEq(usdc.balanceOf(alice), START, "balance kept");
        assertEq(usdc.totalSupply(), START, "supply unchanged");
    }

    function test_UnBlacklist_WhenCalledByBlacklister_ClearsAndEmits() public {
        _blacklist(alice);
        vm.expectEmit(address(usdc));
        emit MockUSDC.UnBlacklisted(alice);
        vm.prank(blacklister);
        usdc.unBlacklist(alice);
        assertFalse(usdc.isBlacklisted(alice), "alice cleared");
        assertEq(usdc.balanceOf(alice), START, "balance kept");
    }

    function test_RevertWhen_BlacklistCalledByNonBlacklister() public {
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_CallerNotBlacklister.selector, owner));
        vm.prank(owner);
        usdc.blacklist(bob);
    }

    function test_RevertWhen_UnBlacklistCalledByNonBlacklister() public {
        _blacklist(bob);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_CallerNotBlacklister.selector, bob));
        vm.prank(bob);
        usdc.unBlacklist(bob);
    }

    function test_UpdateBlacklister_WhenCalledByOwner_MovesRole() public {
        vm.expectEmit(address(usdc));
        emit MockUSDC.BlacklisterChanged(carol);
        vm.prank(owner);
        usdc.updateBlacklister(carol);
        assertEq(usdc.blacklister(), carol, "carol is blacklister");
        vm.prank(carol);
        usdc.blacklist(bob);
        assertTrue(usdc.isBlacklisted(bob), "new blacklister acts");
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_CallerNotBlacklister.selector, blacklister));
        vm.prank(blacklister);
        usdc.blacklist(carol);
    }

    function test_RevertWhen_UpdateBlacklisterCalledByNonOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, blacklister));
        vm.prank(blacklister);
        usdc.updateBlacklister(mallory);
    }

    function test_RevertWhen_UpdateBlacklisterToZeroAddress() public {
        vm.expectRevert(MockUSDC.MockUSDC_InvalidBlacklister.selector);
        vm.prank(owner);
        usdc.updateBlacklister(address(0));
    }

    /*------------------------------ blacklist: every path ------------------------------*/

    function test_RevertWhen_TransferFromBlacklistedSender() public {
        _blacklist(alice);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, alice));
        vm.prank(alice);
        usdc.transfer(bob, 1);
    }

    function test_RevertWhen_TransferToBlacklisted() public {
        _blacklist(bob);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, bob));
        vm.prank(alice);
        usdc.transfer(bob, 1);
    }

    function test_RevertWhen_TransferFromGivenSpenderBlacklisted() public {
        vm.prank(alice);
        usdc.approve(bob, type(uint256).max);
        _blacklist(bob);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, bob));
        vm.prank(bob);
        usdc.transferFrom(alice, carol, 1);
    }

    function test_RevertWhen_TransferFromGivenFromBlacklisted() public {
        vm.prank(alice);
        usdc.approve(bob, type(uint256).max);
        _blacklist(alice);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, alice));
        vm.prank(bob);
        usdc.transferFrom(alice, carol, 1);
    }

    function test_RevertWhen_TransferFromGivenToBlacklisted() public {
        vm.prank(alice);
        usdc.approve(bob, type(uint256).max);
        _blacklist(carol);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, carol));
        vm.prank(bob);
        usdc.transferFrom(alice, carol, 1);
    }

    function test_RevertWhen_ApproveGivenOwnerBlacklisted() public {
        _blacklist(alice);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, alice));
        vm.prank(alice);
        usdc.approve(bob, 1);
    }

    function test_RevertWhen_ApproveGivenSpenderBlacklisted() public {
        _blacklist(bob);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, bob));
        vm.prank(alice);
        usdc.approve(bob, 1);
    }

    function test_RevertWhen_PermitGivenOwnerBlacklisted() public {
        _blacklist(alice);
        (uint8 v, bytes32 r, bytes32 s) = _signPermit(aliceKey, alice, bob, 1, 0, NOW);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, alice));
        usdc.permit(alice, bob, 1, NOW, v, r, s);
    }

    function test_RevertWhen_PermitGivenSpenderBlacklisted() public {
        _blacklist(bob);
        (uint8 v, bytes32 r, bytes32 s) = _signPermit(aliceKey, alice, bob, 1, 0, NOW);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, bob));
        usdc.permit(alice, bob, 1, NOW, v, r, s);
    }

    function test_RevertWhen_TransferWithAuthorizationFromBlacklisted() public {
        _blacklist(alice);
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 1e6);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, alice));
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
    }

    function test_RevertWhen_TransferWithAuthorizationToBlacklisted() public {
        _blacklist(bob);
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_TRANSFER_TYPEHASH, bob, 1e6);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, bob));
        usdc.transferWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
        assertFalse(usdc.authorizationState(alice, NONCE), "nonce not consumed by the failed call");
    }

    function test_RevertWhen_ReceiveWithAuthorizationFromBlacklisted() public {
        _blacklist(alice);
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_RECEIVE_TYPEHASH, bob, 1e6);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, alice));
        vm.prank(bob);
        usdc.receiveWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
    }

    function test_RevertWhen_ReceiveWithAuthorizationToBlacklisted() public {
        _blacklist(bob);
        (uint256 validAfter, uint256 validBefore, uint8 v, bytes32 r, bytes32 s) =
            _authorize(FIAT_RECEIVE_TYPEHASH, bob, 1e6);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, bob));
        vm.prank(bob);
        usdc.receiveWithAuthorization(alice, bob, 1e6, validAfter, validBefore, NONCE, v, r, s);
    }

    function test_RevertWhen_MintToBlacklisted() public {
        _blacklist(bob);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, bob));
        usdc.mint(bob, 1);
    }

    function test_GivenUnBlacklisted_WhenTransferring_FundsMoveAgain() public {
        _blacklist(alice);
        _blacklist(bob);
        vm.startPrank(blacklister);
        usdc.unBlacklist(alice);
        usdc.unBlacklist(bob);
        vm.stopPrank();

        vm.prank(alice);
        usdc.transfer(bob, 10e6);
        vm.prank(bob);
        usdc.approve(carol, 5e6);
        vm.prank(carol);
        usdc.transferFrom(bob, alice, 5e6);
        _transferWithAuthorization(bob, 1e6);
        assertEq(usdc.balanceOf(alice), START - 10e6 + 5e6 - 1e6, "alice after round trip");
        assertEq(usdc.balanceOf(bob), 10e6 - 5e6 + 1e6, "bob after round trip");
    }

    /*------------------------------ storage packing ------------------------------*/

    function test_BalanceAndFlag_ShareOneStorageWord() public {
        vm.record();
        usdc.balanceOf(alice);
        usdc.isBlacklisted(alice);
        (bytes32[] memory reads,) = vm.accesses(address(usdc));
        assertEq(reads.length, 2, "one read each");
        assertEq(reads[0], reads[1], "balanceOf and isBlacklisted read the same slot");
        assertEq(uint256(reads[0]), uint256(keccak256(abi.encode(alice, balanceSlotBase))), "alice's balance word");
    }

    function test_Transfer_TouchesOnlyTheTwoBalanceWords() public {
        bytes32 aliceWord = keccak256(abi.encode(alice, balanceSlotBase));
        bytes32 bobWord = keccak256(abi.encode(bob, balanceSlotBase));
        vm.record();
        vm.prank(alice);
        usdc.transfer(bob, 1e6);
        (bytes32[] memory reads, bytes32[] memory writes) = vm.accesses(address(usdc));
        assertEq(writes.length, 2, "two writes");
        assertEq(writes[0], aliceWord, "first write: sender word");
        assertEq(writes[1], bobWord, "second write: recipient word");
        for (uint256 i; i < reads.length; ++i) {
            assertTrue(reads[i] == aliceWord || reads[i] == bobWord, "every read is one of the two balance words");
        }
    }

    function testFuzz_GivenBlacklisted_BalanceOfNeverShowsFlag(address account, uint256 amount) public {
        vm.assume(account != address(0) && account != alice);
        amount = bound(amount, 0, MAX_SUPPLY - START);
        usdc.mint(account, amount);
        assertEq(_balanceWord(account), amount, "raw word is the bare balance");
        assertFalse(usdc.isBlacklisted(account), "a balance never sets the flag");

        _blacklist(account);
        assertEq(_balanceWord(account), amount | FLAG, "raw word carries the flag");
        assertEq(usdc.balanceOf(account), amount, "balanceOf masks the flag");
        assertLe(usdc.balanceOf(account), MAX_SUPPLY, "balanceOf below 2^255");
        assertEq(usdc.totalSupply(), START + amount, "supply unchanged by blacklisting");

        vm.prank(blacklister);
        usdc.unBlacklist(account);
        assertEq(_balanceWord(account), amount, "flag cleared, balance intact");
        assertEq(usdc.balanceOf(account), amount, "balanceOf after unBlacklist");
    }

    function test_GivenMaximumBalance_FlagStaysClear() public {
        usdc.mint(bob, MAX_SUPPLY - START);
        vm.prank(alice);
        usdc.transfer(bob, START);
        assertEq(usdc.balanceOf(bob), MAX_SUPPLY, "bob holds the whole supply");
        assertFalse(usdc.isBlacklisted(bob), "a maximal balance does not read as blacklisted");
        _blacklist(bob);
        assertEq(usdc.balanceOf(bob), MAX_SUPPLY, "balanceOf masks the flag at the maximum");
        assertEq(_balanceWord(bob), type(uint256).max, "raw word: flag and maximal balance");
    }

    function testFuzz_GivenBlacklistedWithBalance_TransfersOfOthersLeaveFlag(uint256 amount) public {
        amount = bound(amount, 1, START);
        usdc.mint(bob, 7e6);
        _blacklist(bob);
        vm.expectRevert(abi.encodeWithSelector(MockUSDC.MockUSDC_Blacklisted.selector, bob));
        vm.prank(alice);
        usdc.transfer(bob, amount);
        vm.prank(alice);
        usdc.transfer(carol, amount);
        assertEq(_balanceWord(bob), 7e6 | FLAG, "bob's word unchanged");
        assertEq(_balanceWord(carol), amount, "carol's word has no flag");
    }

    /*------------------------------ fuzz: conservation ------------------------------*/

    function testFuzz_Transfers_PreserveTotalSupply(
        uint256[3] memory mints,
        uint256[8] memory amounts,
        uint8[8] memory routes
    ) public {
        address[3] memory actors = [alice, bob, carol];
        uint256[3] memory expected;
        expected[0] = START;
        for (uint256 i; i < 3; ++i) {
            mints[i] = bound(mints[i], 0, 1e30);
            usdc.mint(actors[i], mints[i]);
            expected[i] += mints[i];
            vm.prank(actors[i]);
            usdc.approve(relayer, type(uint256).max);
        }
        uint256 supply = usdc.totalSupply();
        assertEq(supply, expected[0] + expected[1] + expected[2], "supply equals the mints");

        for (uint256 i; i < 8; ++i) {
            uint256 f = routes[i] % 3;
            uint256 t = (routes[i] / 3) % 3;
            uint256 amount = bound(amounts[i], 0, expected[f]);
            if (routes[i] % 2 == 0) {
                vm.prank(actors[f]);
                usdc.transfer(actors[t], amount);
            } else {
                vm.prank(relayer);
                usdc.transferFrom(actors[f], actors[t], amount);
            }
            expected[f] -= amount;
            expected[t] += amount;
        }

        assertEq(usdc.totalSupply(), supply, "total supply preserved");
        uint256 sum;
        for (uint256 i; i < 3; ++i) {
            assertEq(usdc.balanceOf(actors[i]), expected[i], "balance matches the tally");
            sum += usdc.balanceOf(actors[i]);
        }
        assertEq(sum, supply, "balances sum to total supply");
        assertEq(usdc.allowance(alice, relayer), type(uint256).max, "infinite allowance never decremented");
    }
}

/// @dev Drives random mints, transfers, approvals and blacklisting over a fixed set of actors.
contract MockUSDCHandler is Test {
    MockUSDC internal immutable usdc;
    address[] internal actors;
    mapping(address => bool) public ghostBlacklisted;

    constructor(MockUSDC usdc_) {
        usdc = usdc_;
        for (uint256 i = 1; i <= 4; ++i) actors.push(address(uint160(0x1000 + i)));
    }

    function actorCount() external view returns (uint256) {
        return actors.length;
    }

    function actorAt(uint256 i) external view returns (address) {
        return actors[i];
    }

    function _actor(uint256 seed) internal view returns (address) {
        return actors[seed % actors.length];
    }

    function mint(uint256 toSeed, uint256 amount) external {
        address to = _actor(toSeed);
        if (ghostBlacklisted[to]) return;
        amount = bound(amount, 0, 1e36);
        usdc.mint(to, amount);
    }

    function transfer(uint256 fromSeed, uint256 toSeed, uint256 amount) external {
        address from = _actor(fromSeed);
        address to = _actor(toSeed);
        if (ghostBlacklisted[from] || ghostBlacklisted[to]) return;
        amount = bound(amount, 0, usdc.balanceOf(from));
        vm.prank(from);
        usdc.transfer(to, amount);
    }

    function approve(uint256 ownerSeed, uint256 spenderSeed, uint256 amount) external {
        address owner = _actor(ownerSeed);
        address spender = _actor(spenderSeed);
        if (ghostBlacklisted[owner] || ghostBlacklisted[spender]) return;
        vm.prank(owner);
        usdc.approve(spender, amount % 2 == 0 ? type(uint256).max : amount);
    }

    function transferFrom(uint256 spenderSeed, uint256 fromSeed, uint256 toSeed, uint256 amount) external {
        address spender = _actor(spenderSeed);
        address from = _actor(fromSeed);
        address to = _actor(toSeed);
        if (ghostBlacklisted[spender] || ghostBlacklisted[from] || ghostBlacklisted[to]) return;
        uint256 balance = usdc.balanceOf(from);
        uint256 allowed = usdc.allowance(from, spender);
        amount = bound(amount, 0, balance < allowed ? balance : allowed);
        vm.prank(spender);
        usdc.transferFrom(from, to, amount);
        if (allowed == type(uint256).max) {
            assertEq(usdc.allowance(from, spender), allowed, "infinite allowance kept");
        } else {
            assertEq(usdc.allowance(from, spender), allowed - amount, "finite allowance decremented");
        }
    }

    function blacklist(uint256 seed) external {
        address account = _actor(seed);
        usdc.blacklist(account);
        ghostBlacklisted[account] = true;
    }

    function unBlacklist(uint256 seed) external {
        address account = _actor(seed);
        usdc.unBlacklist(account);
        ghostBlacklisted[account] = false;
    }
}

contract MockUSDCInvariantTest is MockUSDCFixture {
    MockUSDCHandler internal handler;

    function setUp() public {
        _deploy(address(this));
        handler = new MockUSDCHandler(usdc);
        usdc.updateBlacklister(address(handler));
        targetContract(address(handler));
    }

    function invariant_BalancesSumToTotalSupply() public view {
        uint256 sum;
        for (uint256 i; i < handler.actorCount(); ++i) {
            sum += usdc.balanceOf(handler.actorAt(i));
        }
        assertEq(sum, usdc.totalSupply(), "sum of balances == total supply");
    }

    function invariant_BalanceWordIsBalanceAndFlag() public view {
        for (uint256 i; i < handler.actorCount(); ++i) {
            address account = handler.actorAt(i);
            bool flagged = handler.ghostBlacklisted(account);
            uint256 balance = usdc.balanceOf(account);
            assertLe(balance, MAX_SUPPLY, "balance below 2^255");
            assertEq(usdc.isBlacklisted(account), flagged, "isBlacklisted matches the ghost");
            assertEq(_balanceWord(account), balance | (flagged ? FLAG : 0), "word = flag | balance");
        }
    }
}
