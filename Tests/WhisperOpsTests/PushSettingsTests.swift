import Testing
@testable import WhisperOps

/// `WHISPER_APNS_*`, `WHISPER_FCM_*`, `WHISPER_PUSH_*` (docs/operations.md "Push").
@Suite struct PushSettingsTests {
    static let apns = [
        "WHISPER_APNS_KEY_FILE": "/etc/whisper/AuthKey.p8", "WHISPER_APNS_KEY_ID": "ABC123DEFG",
        "WHISPER_APNS_TEAM_ID": "TEAM123456", "WHISPER_APNS_TOPIC": "org.example.whisper",
    ]

    @Test func load_disablesBothProviders_whenNothingIsSet() throws {
        let config = try loadConfig([:])
        #expect(config.push == PushSettings(apns: nil, fcm: nil, caFile: nil))
        #expect(config.limits.pushCoalesceSeconds == 30)
    }

    @Test func load_readsAPNsWithAppleAsDefaultEndpoint_whenAllFourAreSet() throws {
        let config = try loadConfig(Self.apns)
        #expect(config.push.apns == PushSettings.APNs(keyFile: "/etc/whisper/AuthKey.p8", keyId: "ABC123DEFG",
                                                      teamId: "TEAM123456", topic: "org.example.whisper",
                                                      endpoint: "https://api.push.apple.com"))
        #expect(config.push.fcm == nil)
        #expect(config.unrecognizedVariables.isEmpty)
    }

    @Test func load_namesTheMissingAPNsVariable_whenOnlySomeAreSet() {
        var environment = Self.apns
        environment["WHISPER_APNS_TEAM_ID"] = nil
        #expect(configError(environment)?.variable == "WHISPER_APNS_TEAM_ID")
    }

    @Test func load_readsFCMAndTheCAFileAndTheWindow_whenSet() throws {
        let config = try loadConfig(["WHISPER_FCM_CREDENTIALS_FILE": "/etc/whisper/fcm.json",
                                     "WHISPER_FCM_ENDPOINT": "https://127.0.0.1:8443/", "WHISPER_PUSH_CA_FILE": "/tmp/ca.pem",
                                     "WHISPER_PUSH_COALESCE_SECONDS": "3"])
        #expect(config.push.fcm == PushSettings.FCM(credentialsFile: "/etc/whisper/fcm.json", endpoint: "https://127.0.0.1:8443"))
        #expect(config.push.caFile == "/tmp/ca.pem")
        #expect(config.limits.pushCoalesceSeconds == 3)
    }

    @Test func load_refusesAPlainHTTPEndpointAndABadWindow() {
        #expect(configError(["WHISPER_FCM_CREDENTIALS_FILE": "/f.json", "WHISPER_FCM_ENDPOINT": "http://fcm.local"])?.variable
            == "WHISPER_FCM_ENDPOINT")
        var environment = Self.apns
        environment["WHISPER_APNS_ENDPOINT"] = "api.push.apple.com"
        #expect(configError(environment)?.variable == "WHISPER_APNS_ENDPOINT")
        #expect(configError(["WHISPER_PUSH_COALESCE_SECONDS": "0"])?.variable == "WHISPER_PUSH_COALESCE_SECONDS")
    }
}
