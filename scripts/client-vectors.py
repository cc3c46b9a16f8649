#!/usr/bin/env python3
# Regenerates Tests/Fixtures/client-vectors.json (docs/client.md "Vectors") with an implementation
# independent of the Swift client: Python's hashlib/hmac, the `mnemonic` package (Trezor's BIP39
# reference) and libsodium through ctypes. Development-time only; the Swift tests never run it.
#
#   python3 -m venv /tmp/mnvenv && /tmp/mnvenv/bin/pip install mnemonic==0.21
#   /tmp/mnvenv/bin/python scripts/client-vectors.py > Tests/Fixtures/client-vectors.json
#
# The output is deterministic (fixed entropy, keys and nonces; Ed25519 signatures are
# deterministic), so a rerun must reproduce the committed file byte for byte.
import ctypes, ctypes.util, hashlib, hmac, json, base64, unicodedata, sys
from mnemonic import Mnemonic

na = ctypes.CDLL(ctypes.util.find_library("sodium"))
assert na.sodium_init() >= 0
def buf(n): return ctypes.create_string_buffer(n)

def hkdf(ikm, salt, info, n):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < n:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest(); out += t; i += 1
    return prk, out[:n]

def seed_of(words, passphrase=""):
    m = unicodedata.normalize("NFKD", words).encode(); s = ("mnemonic" + unicodedata.normalize("NFKD", passphrase)).encode()
    return hashlib.pbkdf2_hmac("sha512", m, s, 2048, 64)

def x25519_pub(sk):
    pk = buf(32); assert na.crypto_scalarmult_base(pk, sk) == 0; return pk.raw
def ed_keypair(seed):
    pk, sk = buf(32), buf(64); assert na.crypto_sign_seed_keypair(pk, sk, seed) == 0; return pk.raw, sk.raw
def ed_sign(sk, msg):
    sig = buf(64); assert na.crypto_sign_detached(sig, None, msg, ctypes.c_ulonglong(len(msg)), sk) == 0; return sig.raw
def box(m, nonce, pk, sk):
    c = buf(len(m) + 16); assert na.crypto_box_easy(c, m, ctypes.c_ulonglong(len(m)), nonce, pk, sk) == 0; return c.raw
def secretbox(m, nonce, k):
    c = buf(len(m) + 16); assert na.crypto_secretbox_easy(c, m, ctypes.c_ulonglong(len(m)), nonce, k) == 0; return c.raw

b64 = lambda b: base64.b64encode(b).decode()
mn = Mnemonic("english")
out = {}

# BIP39: the official English vectors (trezor/python-mnemonic vectors.json, passphrase "TREZOR").
official = ["00000000000000000000000000000000", "7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f", "80808080808080808080808080808080",
            "ffffffffffffffffffffffffffffffff", "000000000000000000000000000000000000000000000000",
            "7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f", "808080808080808080808080808080808080808080808080",
            "ffffffffffffffffffffffffffffffffffffffffffffffff",
            "0000000000000000000000000000000000000000000000000000000000000000",
            "7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f",
            "8080808080808080808080808080808080808080808080808080808080808080",
            "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
            "9e885d952ad362caeb4efe34a8e91bd2", "6610b25967cdcca9d59875f5cb50b0ea75433311869e930b",
            "68a79eaca2324873eacc50cb9c6eca8cc68ea5d936f98787c60c7ebc74e6ce7c",
            "c0ba5a8e914111210f2bd131f3d5e08d", "6d9be1ee6ebd27a258115aad99b7317b9c8d28b6d76431c3",
            "9f6a2878b2520799a44ef18bc7df394e7061a224d2c33cd015b157d746869863",
            "23db8160a31d3e97dca3688e1b4a2b2f", "8197a4a47f0425faeaa69deebc05ca29c0a5b5cc76ceacc0",
            "066dca1a2bb7e8a1db2832148ce9933eea0f3ac9548d793112d9a95c9407efad",
            "f30f8c1da665478f49b001d94c5fc452", "c10ec20dc3cd9f652c7fac2f1230f7a3c828389a14392f05",
            "f585c11aec520db57dd353c69554b21a89b20fb0650966fa0a9d6f74fd989d8f"]
vec = []
for e in official:
    words = mn.to_mnemonic(bytes.fromhex(e))
    s = seed_of(words, "TREZOR"); assert s == Mnemonic.to_seed(words, "TREZOR")
    vec.append([e, words, s.hex()])
assert vec[0][2].startswith("c55257c360c07c72029aebc1b53c05ed")
out["bip39"] = vec
# NFKD: a passphrase with composed and compatibility characters
pp = "Caf\u00e9 \uff34\uff32\uff25\uff3a\uff2f\uff32"
out["nfkd"] = {"mnemonic": vec[0][1], "passphrase": pp, "seed": Mnemonic.to_seed(vec[0][1], pp).hex()}
assert Mnemonic.to_seed(vec[0][1], pp) == seed_of(vec[0][1], pp)

# RFC 5869 A.1-A.3
cases = [("0b"*22, "000102030405060708090a0b0c", "f0f1f2f3f4f5f6f7f8f9", 42),
         (bytes(range(0x00, 0x50)).hex(), bytes(range(0x60, 0xb0)).hex(), bytes(range(0xb0, 0x100)).hex(), 82),
         ("0b"*22, "", "", 42)]
out["hkdf"] = [dict(zip(["ikm","salt","info","length","prk","okm"], [i, s, f, n] + [x.hex() for x in hkdf(bytes.fromhex(i), bytes.fromhex(s), bytes.fromhex(f), n)])) for i, s, f, n in cases]

def identity(words, passphrase=""):
    seed = seed_of(words, passphrase)
    _, enc = hkdf(seed, b"whisper", b"whisper/enc", 32)
    _, sign = hkdf(seed, b"whisper", b"whisper/sign", 32)
    _, contacts = hkdf(seed, b"whisper", b"whisper/contacts", 32)
    spk, ssk = ed_keypair(sign)
    return dict(mnemonic=words, passphrase=passphrase, seed=seed.hex(), encSeed=enc.hex(), signSeed=sign.hex(),
                contactsKey=contacts.hex(), encPublicKey=b64(x25519_pub(enc)), signPublicKey=b64(spk)), enc, ssk

alice, alice_enc, alice_ssk = identity("legal winner thank year wave sausage worth useful legal winner thank yellow")
bob, bob_enc, bob_ssk = identity("letter advice cage absurd amount doctor acoustic avoid letter advice cage above")
alice["whisperId"], bob["whisperId"] = "WSP-ABCD-EFGH-IJ54", "WSP-HESP-ERAL-IT3A"
out["alice"], out["bob"] = alice, bob

def signed(mtype, mid, frm, to, ts, nonce_b64, ct_b64):
    sb = f"v1\n{mtype}\n{mid}\n{frm}\n{to}\n{ts}\n{nonce_b64}\n{ct_b64}\n".encode()
    return sb, ed_sign(alice_ssk, hashlib.sha256(sb).digest())

bob_pk = base64.b64decode(bob["encPublicKey"])
text = "Hello Bob \u2014 \U0001F44B"
nonce = bytes(range(0x10, 0x28))
ct = box(text.encode(), nonce, bob_pk, alice_enc)
mid, ts = "7d0b8c1e-2f3a-4b5c-9d6e-0f1a2b3c4d5e", 1763820000000
sb, sig = signed("send_message", mid, alice["whisperId"], bob["whisperId"], ts, b64(nonce), b64(ct))
payload = {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"k0UX3JqzqD6oV7a3w2mYQ331cXzj0cE3l0bq8sXbN1M=",
           "messageId":mid,"from":alice["whisperId"],"to":bob["whisperId"],"msgType":"text","timestamp":ts,
           "nonce":b64(nonce),"ciphertext":b64(ct),"sig":b64(sig)}
frame = json.dumps({"type":"send_message","requestId":"c-1","payload":payload}, separators=(",",":"), ensure_ascii=False)
out["sendMessage"] = dict(plaintext=text, nonce=nonce.hex(), messageId=mid, timestamp=ts, requestId="c-1",
    sessionToken=payload["sessionToken"], ciphertextBase64=b64(ct), signedBytes=sb.decode(), signatureBase64=b64(sig), frame=frame)

gid, gmid, gts = "grp-5f0e2d1c-3b4a-4968-8776-a5b4c3d2e1f0", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", 1763820001000
gnonce = bytes(range(0x30, 0x48)); gct = box(b"to the group", gnonce, bob_pk, alice_enc)
gsb, gsig = signed("group_send_message", gmid, alice["whisperId"], gid, gts, b64(gnonce), b64(gct))
out["groupSendMessage"] = dict(groupId=gid, messageId=gmid, timestamp=gts, plaintext="to the group", nonce=gnonce.hex(),
    ciphertextBase64=b64(gct), signedBytes=gsb.decode(), signatureBase64=b64(gsig))

cid, cts = "C0FFEE00-1111-4222-8333-444455556666", 1763820002000
cnonce = bytes(range(0x50, 0x68)); sdp = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\n"; cct = box(sdp.encode(), cnonce, bob_pk, alice_enc)
csb, csig = signed("call_initiate", cid, alice["whisperId"], bob["whisperId"], cts, b64(cnonce), b64(cct))
out["callInitiate"] = dict(callId=cid, timestamp=cts, plaintext=sdp, nonce=cnonce.hex(), ciphertextBase64=b64(cct),
    signedBytes=csb.decode(), signatureBase64=b64(csig))

file_bytes = bytes((i * 7 + 3) & 0xff for i in range(100))
file_key, file_nonce, key_nonce = bytes(range(0x80, 0xa0)), bytes(range(0xa0, 0xb8)), bytes(range(0xc0, 0xd8))
out["attachment"] = dict(fileBytes=file_bytes.hex(), fileKey=file_key.hex(), fileNonce=file_nonce.hex(),
    fileCiphertextBase64=b64(secretbox(file_bytes, file_nonce, file_key)), keyNonce=key_nonce.hex(),
    fileKeyBoxCiphertextBase64=b64(box(file_key, key_nonce, bob_pk, alice_enc)))

contacts_json = '{"version":1,"exportedAt":1763820000000,"contacts":[{"whisperId":"WSP-HESP-ERAL-IT3A","addedAt":1763810000000,"displayName":"Bob","isBlocked":false,"isPinned":true,"isMuted":false}]}'
bnonce = bytes(range(0xe0, 0xf8))
out["contactsBackup"] = dict(contactsJson=contacts_json, nonce=bnonce.hex(),
    ciphertextBase64=b64(secretbox(contacts_json.encode(), bnonce, bytes.fromhex(alice["contactsKey"]))))

fixture = {
    "description": "Client crypto vectors (docs/client.md, spec §3.4, §3.5, §4, §6.2-§6.3, §14.1). Read by WhisperClientTests (which recompute every value with the Swift client) and by the server's tests (which parse sendMessage.frame with the server's parser and verify its signature with the server's verifier). Generated and cross-checked at development time with an independent implementation (Python hashlib/hmac, the `mnemonic` 0.21 package, libsodium 1.0.18 through ctypes). Hex unless a field name ends in Base64; text fields are UTF-8. 'alice' signs and seals to 'bob'; both passphrases are empty.",
    "bip39": {
        "description": "The official BIP39 English vectors (trezor/python-mnemonic vectors.json): [entropy, mnemonic, seed] with passphrase TREZOR. 'nfkd' checks that a passphrase is NFKD-normalised before hashing.",
        "wordlistSHA256": hashlib.sha256("".join(w + "\n" for w in mn.wordlist).encode()).hexdigest(),
        "passphrase": "TREZOR",
        "vectors": out["bip39"],
        "nfkd": out["nfkd"],
    },
    "hkdfRFC5869": {"description": "RFC 5869 Appendix A.1-A.3 (HKDF-SHA256).", "cases": out["hkdf"]},
}
for key in ["alice", "bob", "sendMessage", "groupSendMessage", "callInitiate", "attachment", "contactsBackup"]:
    fixture[key] = out[key]
assert fixture["bip39"]["wordlistSHA256"] == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"
json.dump(fixture, sys.stdout, indent=2, ensure_ascii=False)
sys.stdout.write("\n")
