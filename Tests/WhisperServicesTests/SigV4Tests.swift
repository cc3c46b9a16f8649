import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices

/// AWS Signature Version 4 against AWS's published vectors: the aws-sig-v4-test-suite cases
/// (credentials AKIDEXAMPLE, region us-east-1, service `service`, 20150830T123600Z) and the S3
/// documentation's presigned-URL example ("Authenticating Requests: Using Query Parameters").
@Suite struct SigV4Tests {
    static let suiteSigner = SigV4(accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                   region: "us-east-1", service: "service")
    static let suiteTime = SigV4.Timestamp(epochSeconds: 1_440_938_160) // 2015-08-30T12:36:00Z
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    static func suiteRequest(_ method: String, query: [(name: String, value: String)] = []) -> SigV4.Request {
        SigV4.Request(method: method, canonicalURI: "/", query: query,
                      headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                      payloadHash: emptyHash)
    }

    @Test func sha256AndHMACSHA256_matchFIPSAndRFC4231() {
        #expect(SHA256Digest.hex([]) == Self.emptyHash)
        // RFC 4231 test case 2.
        let mac = HMACSHA256.authenticate(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // An empty key: HMAC-SHA256("", "") as computed by Python's hmac module.
        #expect(Hex.encode(HMACSHA256.authenticate([], key: []))
            == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func timestamp_isBasicISO8601UTC() {
        #expect(Self.suiteTime.dateTime == "20150830T123600Z")
        #expect(Self.suiteTime.date == "20150830")
        #expect(SigV4.Timestamp(epochSeconds: 1_369_353_600).dateTime == "20130524T000000Z")
    }

    @Test func getVanilla_matchesCanonicalRequestStringToSignAndSignature() {
        let request = Self.suiteRequest("GET")
        let canonical = SigV4.canonicalRequest(request)
        #expect(canonical.text == "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
            + Self.emptyHash)
        #expect(canonical.signedHeaders == "host;x-amz-date")
        #expect(Self.suiteSigner.stringToSign(canonicalRequest: canonical.text, at: Self.suiteTime)
            == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
            + "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63")
        #expect(Self.suiteSigner.signature(request, at: Self.suiteTime)
            == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func getVanillaQuery_withAnEmptyQuery_signsLikeGetVanilla() {
        #expect(Self.suiteSigner.signature(Self.suiteRequest("GET", query: []), at: Self.suiteTime)
            == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func postVanilla_matchesSignature() {
        #expect(Self.suiteSigner.signature(Self.suiteRequest("POST"), at: Self.suiteTime)
            == "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b")
    }

    @Test func getVanillaQueryOrderKeyCase_sortsParametersByName() {
        let request = Self.suiteRequest("GET", query: [("Param2", "value2"), ("Param1", "value1")])
        #expect(SigV4.canonicalQuery(request.query) == "Param1=value1&Param2=value2")
        #expect(Self.suiteSigner.signature(request, at: Self.suiteTime)
            == "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500")
    }

    @Test func s3PresignedURLExample_matchesTheDocumentedURL() {
        let settings = S3Settings(endpoint: "https://s3.amazonaws.com", region: "us-east-1", bucket: "examplebucket",
                                  accessKey: Secret("AKIAIOSFODNN7EXAMPLE"),
                                  secretKey: Secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), pathStyle: false)
        let url = S3Presigner(settings: settings, endpoint: settings.endpoint).presign(method: "GET", objectKey: "test.txt", expiresSeconds: 86_400,
                                                          nowSeconds: 1_369_353_600)
        #expect(url == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
            + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
            + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test func presign_pathStyle_putsTheBucketInThePath_andSignsExtraHeaders() {
        let settings = S3Settings(endpoint: "http://127.0.0.1:4566", region: "us-east-1", bucket: "whisper",
                                  accessKey: Secret("test"), secretKey: Secret("test"), pathStyle: true)
        let url = S3Presigner(settings: settings, endpoint: settings.endpoint).presign(
            method: "PUT", objectKey: "att/2026/11/x.bin",
            headers: [("Content-Type", "image/jpeg"), ("Content-Length", "10")], expiresSeconds: 900, nowSeconds: 0)
        #expect(url.hasPrefix("http://127.0.0.1:4566/whisper/att/2026/11/x.bin?X-Amz-Algorithm=AWS4-HMAC-SHA256"))
        #expect(url.contains("&X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost&"))
        #expect(url.contains("&X-Amz-Expires=900&"))
    }

    @Test func presign_leavesTheDefaultPortOutOfTheSignedHost() {
        func url(_ endpoint: String) -> String {
            let settings = S3Settings(endpoint: endpoint, region: "us-east-1", bucket: "b-1", accessKey: Secret("k"),
                                      secretKey: Secret("s"), pathStyle: true)
            return S3Presigner(settings: settings, endpoint: settings.endpoint).presign(method: "GET", objectKey: "x", expiresSeconds: 60, nowSeconds: 0)
        }
        #expect(url("https://S3.example.com:443") == url("https://s3.example.com"))
        #expect(url("https://s3.example.com:443").hasPrefix("https://s3.example.com/b-1/x?"))
        #expect(url("http://127.0.0.1:4566").hasPrefix("http://127.0.0.1:4566/b-1/x?"))
    }

    @Test func uriEncode_keepsUnreservedBytes_andEncodesTheRestUpperCase() {
        #expect(SigV4.uriEncode("a b~c/d+é", keepSlash: false) == "a%20b~c%2Fd%2B%C3%A9")
        #expect(SigV4.uriEncode("att/2026/x.bin", keepSlash: true) == "att/2026/x.bin")
    }
}
