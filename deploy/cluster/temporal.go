package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"text/template"
)

// temporalConfig is the Temporal server's configuration: PostgreSQL persistence and SQL
// visibility on the machine's PostgreSQL, every service in one process on loopback ports
// counted from the frontend's.
var temporalConfig = template.Must(template.New("temporal").Funcs(template.FuncMap{"add": func(a, b int) int { return a + b }}).Parse(`log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 8
  datastores:
    default:
      sql:
        pluginName: postgres12
        databaseName: {{.DB}}
        connectAddr: "{{.PGHost}}:{{.PGPort}}"
        connectProtocol: tcp
        user: {{.PGUser}}
        password: ""
        maxConns: 20
        maxIdleConns: 20
        maxConnLifetime: 1h
    visibility:
      sql:
        pluginName: postgres12
        databaseName: {{.VisibilityDB}}
        connectAddr: "{{.PGHost}}:{{.PGPort}}"
        connectProtocol: tcp
        user: {{.PGUser}}
        password: ""
        maxConns: 4
        maxIdleConns: 4
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:
    rpc: {grpcPort: {{.Frontend}}, membershipPort: {{add .Frontend -300}}, bindOnLocalHost: true, httpPort: {{add .Frontend 10}}}
  history:
    rpc: {grpcPort: {{add .Frontend 1}}, membershipPort: {{add .Frontend -299}}, bindOnLocalHost: true}
  matching:
    rpc: {grpcPort: {{add .Frontend 2}}, membershipPort: {{add .Frontend -298}}, bindOnLocalHost: true}
  worker:
    rpc: {grpcPort: {{add .Frontend 6}}, membershipPort: {{add .Frontend -294}}, bindOnLocalHost: true}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:{{.Frontend}}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "{{.DynamicConfig}}"
  pollInterval: 10s
`))

// dynamicConfig: search attributes are read through at once (a worker's first start after the
// namespace got them), Updates are on.
const dynamicConfig = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
frontend.enableUpdateWorkflowExecution:
  - value: true
frontend.enableUpdateWorkflowExecutionAsyncAccepted:
  - value: true
`

// writeTemporalConfig writes the server's configuration and dynamic configuration under dir.
func writeTemporalConfig(dir string, o Options) (string, error) {
	dyn := filepath.Join(dir, "temporal-dynamic.yaml")
	if err := os.WriteFile(dyn, []byte(dynamicConfig), 0o600); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "temporal.yaml")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	err = temporalConfig.Execute(f, map[string]any{
		"DB": o.TemporalDB, "VisibilityDB": o.TemporalDB + "_visibility", "PGHost": o.PGHost, "PGPort": o.PGPort, "PGUser": o.PGUser,
		"Frontend": o.TemporalPort, "DynamicConfig": dyn,
	})
	if err != nil {
		return "", fmt.Errorf("temporal config: %w", err)
	}
	return path, nil
}
