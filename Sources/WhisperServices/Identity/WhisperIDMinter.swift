import WhisperProtocol

/// Mints Whisper IDs: ten symbols from libsodium's CSPRNG (a random byte's low five bits;
/// 256 is a multiple of 32, so each symbol is uniform) plus the two check symbols.
public enum WhisperIDMinter {
    public static func mint(using random: RandomSource) -> WhisperID? {
        WhisperID.make(randomCharacters: random.bytes(WhisperID.randomSymbolCount).map { $0 & 0x1F })
    }
}
