/// Hears a logged-in phone's frames and its end: the scenario playing it. Loop thread only.
protocol PhoneOwner: AnyObject {
    func phone(_ phone: Phone, didReceive frame: ServerFrame)
    /// The connection ended after login (before login, the login completion says so instead).
    func phone(_ phone: Phone, didEnd end: ClientEnd)
}
