/// Hears what a `BenchClient` learns. Called on the client's loop thread.
protocol BenchClientDelegate: AnyObject {
    /// The opening handshake succeeded; frames may be sent.
    func clientDidOpen(_ client: BenchClient)
    /// One whole text message from the server.
    func client(_ client: BenchClient, didReceiveText text: [UInt8])
    /// Exactly once, whatever ended the client.
    func client(_ client: BenchClient, didEnd end: ClientEnd)
}
