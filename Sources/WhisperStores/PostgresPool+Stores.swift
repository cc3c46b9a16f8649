import WhisperRuntime
import WhisperServices
import WhisperStorage

extension Optional where Wrapped == PostgresPool {
    /// A store's statement: runs `sql` on the pool and turns its rows into the store's answer
    /// with `transform`, on `loop`. No database configured or a failed statement →
    /// `StoreError.unavailable` (the service maps it to `INTERNAL_ERROR`).
    package func query<T>(_ sql: String, _ parameters: [PostgresValue?], on loop: EventLoop,
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

    /// One statement on a worker thread, never the loop's pipeline, with `transform` run there
    /// too: for results so large (the contacts backup) that reading and converting them would
    /// hold the loop for milliseconds. Completes on `loop`; failures as in `query`.
    package func queryOnWorker<T: Sendable>(_ sql: String, _ parameters: [PostgresValue?], on loop: EventLoop,
                                            _ completion: @escaping StoreCompletion<T>,
                                            _ transform: @escaping @Sendable (PostgresRows) -> Result<T, StoreError>) {
        guard let pool = self else {
            return loop.deferToEndOfIteration { completion(.failure(.unavailable("no database configured"))) }
        }
        pool.withConnection(on: loop, { connection throws(PostgresError) in
            transform(try connection.query(sql, parameters))
        }, { result in
            switch result {
            case .success(let answer): completion(answer)
            case .failure(let error): completion(.failure(.unavailable(error.description)))
            }
        })
    }

    /// A store's transaction: runs `body` inside BEGIN … COMMIT on the pool (ROLLBACK when a
    /// statement fails) and turns what it answered into the store's answer with `transform`,
    /// on `loop`. Failures as in `query`.
    package func transaction<Raw: Sendable, T>(on loop: EventLoop, _ completion: @escaping StoreCompletion<T>,
                                               _ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> Raw,
                                               _ transform: @escaping (Raw) -> Result<T, StoreError>) {
        guard let pool = self else {
            return loop.deferToEndOfIteration { completion(.failure(.unavailable("no database configured"))) }
        }
        pool.transaction(on: loop, body) { result in
            switch result {
            case .success(let raw): completion(transform(raw))
            case .failure(let error): completion(.failure(.unavailable(error.description)))
            }
        }
    }
}
