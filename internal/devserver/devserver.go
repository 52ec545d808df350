// Package devserver runs an embedded Temporal server (SQLite persistence) and the Temporal UI in
// this process, for `svc dev` and the end-to-end tests. It is the only package that imports
// go.temporal.io/server: that module is large, so keep it out of every other package.
package devserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uiserveroptions "github.com/temporalio/ui-server/v2/server/server_options"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/membership/static"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Options configure the embedded server.
type Options struct {
	// DatabaseFile is Temporal's SQLite file; its schema is created when the file is new.
	DatabaseFile string
	// IP to bind (127.0.0.1 by default).
	IP string
	// Port of the gRPC frontend.
	Port int
	// UIPort of the Temporal UI; 0 runs no UI.
	UIPort int
	// Namespace to create (default "default").
	Namespace string
	// SearchAttributes to register on the namespace, all Keyword.
	SearchAttributes []string
	// Retention of closed runs' histories.
	Retention time.Duration
	Logger    *slog.Logger
}

// Server is a running embedded Temporal (and UI).
type Server struct {
	temporal temporal.Server
	stopping *atomic.Bool
	ui       *uiserver.Server
	uiDone   chan struct{}
	addr     string
	uiURL    string
}

// Start creates the schema if needed, registers the namespace and its search attributes, and
// starts the server; it returns once the frontend accepts connections.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.IP == "" {
		o.IP = "127.0.0.1"
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Retention == 0 {
		o.Retention = 7 * 24 * time.Hour
	}
	if o.Port == 0 {
		return nil, errors.New("devserver: port is required")
	}
	sqlConf, err := prepareDatabase(o)
	if err != nil {
		return nil, err
	}
	conf, hosts, err := serverConfig(o, sqlConf)
	if err != nil {
		return nil, err
	}
	stopping := &atomic.Bool{}
	srv, err := temporal.NewServer(
		temporal.WithConfig(conf),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(newLogger(o.Logger.With("component", "temporal"), stopping)),
		temporal.WithDynamicConfigClient(dynamicconfig.StaticClient{
			dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): true,
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("devserver: build: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("devserver: start: %w", err)
	}
	s := &Server{temporal: srv, stopping: stopping, addr: net.JoinHostPort(o.IP, strconv.Itoa(o.Port))}
	if err := waitListening(ctx, s.addr); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	if o.UIPort > 0 {
		s.ui = uiserver.NewServer(uiserveroptions.WithConfigProvider(&uiconfig.Config{
			Host:                o.IP,
			Port:                o.UIPort,
			TemporalGRPCAddress: s.addr,
			EnableUI:            true,
			DefaultNamespace:    o.Namespace,
			DisableNewsFetch:    true,
			CORS:                uiconfig.CORS{CookieInsecure: true},
			HideLogs:            true,
		}))
		s.uiDone = make(chan struct{})
		s.uiURL = fmt.Sprintf("http://%s", net.JoinHostPort(o.IP, strconv.Itoa(o.UIPort)))
		go func() {
			defer close(s.uiDone)
			// Start blocks until Stop; an error here (port taken) leaves the API and worker running.
			if err := s.ui.Start(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				o.Logger.Error("temporal UI stopped", "error", err)
			}
		}()
	}
	return s, nil
}

// Address is the frontend's host:port.
func (s *Server) Address() string { return s.addr }

// UIURL is the Temporal UI's base URL, or "" when no UI runs.
func (s *Server) UIURL() string { return s.uiURL }

// Stop stops the UI, then Temporal.
func (s *Server) Stop() error {
	s.stopping.Store(true)
	if s.ui != nil {
		s.ui.Stop()
		select {
		case <-s.uiDone:
		case <-time.After(5 * time.Second):
		}
	}
	return s.temporal.Stop()
}

func prepareDatabase(o Options) (*config.SQL, error) {
	conf := &config.SQL{
		PluginName:   sqliteplugin.PluginName,
		DatabaseName: o.DatabaseFile,
		ConnectAttributes: map[string]string{
			"mode":          "rwc",
			"_journal_mode": "wal",
			"_synchronous":  "normal",
		},
	}
	if err := os.MkdirAll(filepath.Dir(o.DatabaseFile), 0o700); err != nil {
		return nil, fmt.Errorf("devserver: %w", err)
	}
	if _, err := os.Stat(o.DatabaseFile); errors.Is(err, os.ErrNotExist) {
		if err := sqliteschema.SetupSchema(conf); err != nil {
			return nil, fmt.Errorf("devserver: set up schema: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("devserver: %w", err)
	}
	attrs := map[string]enumspb.IndexedValueType{}
	for _, name := range o.SearchAttributes {
		attrs[name] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
	}
	ns, err := sqliteschema.NewNamespaceConfig("active", o.Namespace, false, attrs)
	if err != nil {
		return nil, fmt.Errorf("devserver: namespace: %w", err)
	}
	ns.Detail.Config.Retention = durationpb.New(o.Retention)
	// A no-op when the namespace exists already (a restart on the same data directory).
	if err := sqliteschema.CreateNamespaces(conf, ns); err != nil {
		return nil, fmt.Errorf("devserver: create namespace: %w", err)
	}
	return conf, nil
}

func serverConfig(o Options, sqlConf *config.SQL) (*config.Config, map[primitives.ServiceName]static.Hosts, error) {
	ports, err := freePorts(o.IP, 7)
	if err != nil {
		return nil, nil, err
	}
	var conf config.Config
	conf.Global.Membership.MaxJoinDuration = 30 * time.Second
	conf.Global.Membership.BroadcastAddress = o.IP
	conf.Persistence.DefaultStore = "sqlite"
	conf.Persistence.VisibilityStore = "sqlite"
	conf.Persistence.NumHistoryShards = 1
	conf.Persistence.DataStores = map[string]config.DataStore{"sqlite": {SQL: sqlConf}}
	frontend := net.JoinHostPort(o.IP, strconv.Itoa(o.Port))
	conf.ClusterMetadata = &cluster.Config{
		EnableGlobalNamespace:    false,
		FailoverVersionIncrement: 10,
		MasterClusterName:        "active",
		CurrentClusterName:       "active",
		ClusterInformation: map[string]cluster.ClusterInformation{
			"active": {Enabled: true, InitialFailoverVersion: 1, RPCAddress: frontend, ClusterID: devClusterID},
		},
	}
	conf.DCRedirectionPolicy.Policy = "noop"
	service := func(grpcPort, membershipPort int) config.Service {
		var s config.Service
		s.RPC.GRPCPort = grpcPort
		s.RPC.MembershipPort = membershipPort
		s.RPC.BindOnIP = o.IP
		return s
	}
	conf.Services = map[string]config.Service{
		"frontend": frontendService(service(o.Port, ports[0]), ports[6]),
		"history":  service(ports[1], ports[2]),
		"matching": service(ports[3], ports[4]),
		"worker":   service(ports[5], 0),
	}
	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	conf.PublicClient.HostPort = frontend
	hosts := map[primitives.ServiceName]static.Hosts{
		primitives.FrontendService: static.SingleLocalHost(frontend),
		primitives.HistoryService:  static.SingleLocalHost(net.JoinHostPort(o.IP, strconv.Itoa(ports[1]))),
		primitives.MatchingService: static.SingleLocalHost(net.JoinHostPort(o.IP, strconv.Itoa(ports[3]))),
		primitives.WorkerService:   static.SingleLocalHost(net.JoinHostPort(o.IP, strconv.Itoa(ports[5]))),
	}
	return &conf, hosts, nil
}

// devClusterID is the embedded cluster's fixed id (a UUID, as Temporal expects).
const devClusterID = "5b4bc3a5-2c1d-4a5e-9f36-7d1f0e6a9c21"

// frontendService adds the frontend's HTTP API port (Temporal's HTTP API and Nexus endpoints).
func frontendService(s config.Service, httpPort int) config.Service {
	s.RPC.HTTPPort = httpPort
	return s
}

// freePorts asks the kernel for n distinct free ports on ip.
func freePorts(ip string, n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			_ = l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			return nil, fmt.Errorf("devserver: free port: %w", err)
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// FreePort returns a free TCP port on 127.0.0.1.
func FreePort() (int, error) {
	p, err := freePorts("127.0.0.1", 1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

func waitListening(ctx context.Context, addr string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("devserver: frontend %s not listening: %w", addr, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
