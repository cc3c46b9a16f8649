// The JSON ping → pong peer that `scripts/bench uws` runs beside whisper-server (issue 30):
// uWebSockets' event loop and WebSocket codec, simdjson's parser, and the frame this server
// answers `ping` with — {"type":"pong","requestId":…,"payload":{"serverTime":<ms>}} — so that
// `whisper-bench ping --anonymous` measures the two side by side on the same frames.
//
//   uws-ping PORT THREADS   one uWS::App per thread, all listening on PORT (SO_REUSEPORT)
#include "App.h"
#include <simdjson.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {
struct Socket {};

long long wallMillis() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void serve(int port) {
    simdjson::ondemand::parser parser;
    std::string reply;
    simdjson::padded_string input;
    uWS::App().ws<Socket>("/*", {
        .compression = uWS::DISABLED,
        .maxPayloadLength = 64 * 1024,
        .idleTimeout = 120,
        .maxBackpressure = 1024 * 1024,
        .message = [&](auto *ws, std::string_view message, uWS::OpCode) {
            input = simdjson::padded_string(message);
            auto document = parser.iterate(input);
            std::string_view type, requestId;
            if (document["type"].get_string().get(type) || type != "ping" ||
                document["requestId"].get_string().get(requestId)) {
                ws->send(R"({"type":"error","payload":{"code":"INVALID_PAYLOAD"}})", uWS::TEXT);
                return;
            }
            reply.assign(R"({"type":"pong","requestId":")");
            reply.append(requestId);
            reply.append(R"(","payload":{"serverTime":)");
            reply.append(std::to_string(wallMillis()));
            reply.append("}}");
            ws->send(reply, uWS::TEXT);
        },
    }).listen(port, [port](auto *listening) {
        if (!listening) {
            std::fprintf(stderr, "uws-ping: cannot listen on port %d\n", port);
            std::exit(1);
        }
    }).run();
}
}  // namespace

int main(int argc, char **argv) {
    int port = argc > 1 ? std::atoi(argv[1]) : 9001;
    int threads = argc > 2 ? std::atoi(argv[2]) : 1;
    std::vector<std::thread> loops;
    for (int i = 0; i < threads; i++) loops.emplace_back(serve, port);
    for (auto &loop : loops) loop.join();
}
