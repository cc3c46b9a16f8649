/// One page of an admin list: the items and the cursor of the next page (`nil` on the last).
public struct AdminPage<Item: Sendable>: Sendable {
    public let items: [Item]
    public let nextCursor: String?

    /// From the `limit + 1` rows a store answered: an extra row means another page follows,
    /// which starts after the last item shown (`key` gives its cursor).
    public init(rows: [Item], limit: Int, key: (Item) -> String) {
        if rows.count > limit {
            items = Array(rows.prefix(limit))
            nextCursor = items.last.map(key)
        } else {
            items = rows
            nextCursor = nil
        }
    }
}
