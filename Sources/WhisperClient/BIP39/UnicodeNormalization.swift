import Foundation

/// NFKD (Unicode compatibility decomposition), which BIP39 applies to the phrase and the
/// passphrase before hashing. The only Foundation use of this module: the standard library has
/// no public normaliser, and Foundation's is the same on Linux and Apple platforms.
enum UnicodeNormalization {
    static func nfkd(_ text: String) -> String {
        text.decomposedStringWithCompatibilityMapping
    }
}
