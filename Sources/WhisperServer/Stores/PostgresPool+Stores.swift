import WhisperRuntime
import WhisperServices
import WhisperStorage

extension Optional where Wrapped == PostgresPool {
    /// A store's statement: runs `sql` on the pool and turns its rows into the store's answer
    /// with `transform`, on `loop`. No database configured or a failed statement →
    /// `StoreError.unavailable` (the service maps it to `INTERNAL_ERROR`).
    func query<T>(_ sql: String, _ parameters: [PostgresValue?], on loop: EventLoop,
                  _ completion: @escaping StoreCompletion<T>,
                  _ transform: @escaping (PostgresRows) -> Result<T, StoreError>) {
        guard let pool = self else {
            return loop.deferToEndOfIteration { completion(.failure(.unavailable("no database configured"))) }
        }
        pool.query(sql, parameters, on: loop) { result in
            switch result {
            case .success(let rows): completion(transform(rows))
            case .failure(let error): completion(.failure(.unavailable(error.description)))
            }
        }
    }
}
