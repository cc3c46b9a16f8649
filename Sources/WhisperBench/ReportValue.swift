/// One value of a benchmark's JSON result line.
public indirect enum ReportValue: Sendable, Equatable {
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case object(ReportObject)
    case array([ReportValue])
    case null
}
