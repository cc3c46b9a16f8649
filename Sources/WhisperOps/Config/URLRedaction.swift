/// Removes credentials from connection URLs before they are printed (start-up summary, errors).
public enum URLRedaction {
    /// `scheme://user:secret@host/...` → `scheme://user:***@host/...`, and any
    /// `password=...` query parameter (libpq accepts one) → `password=***`.
    /// Text without `://` is returned with only the query rule applied.
    public static func redact(_ url: String) -> String {
        redactQueryPassword(redactUserInfo(url))
    }

    /// `bareUserInfoIsPassword`: for schemes (redis) that read `scheme://secret@host` as a
    /// password, a userinfo without a colon is hidden too; elsewhere it is a user name.
    static func redactUserInfo(_ url: String, bareUserInfoIsPassword: Bool = false) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" })
            ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return url }
        let userInfo = authority[..<at]
        let redactedUserInfo: String
        if let colon = userInfo.firstIndex(of: ":") {
            redactedUserInfo = String(userInfo[..<colon]) + ":***"
        } else {
            redactedUserInfo = bareUserInfoIsPassword ? "***" : String(userInfo)
        }
        return String(url[..<schemeEnd.upperBound]) + redactedUserInfo
            + String(url[at...])
    }

    static func redactQueryPassword(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let query = url[url.index(after: question)...]
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter in
            parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
        }
        return String(url[...question]) + parameters.joined(separator: "&")
    }
}
