extension String {
    /// Without leading and trailing spaces and tabs (HTTP optional whitespace).
    func trimmingSpaces() -> String {
        var view = Substring(self)
        while let c = view.first, c == " " || c == "\t" { view.removeFirst() }
        while let c = view.last, c == " " || c == "\t" { view.removeLast() }
        return String(view)
    }
}
