package netguard

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func guard(t *testing.T, cfg Config) *Guard {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCheckAddr(t *testing.T) {
	g := guard(t, Config{})
	tests := []struct {
		addr   string
		reason string // "" = allowed
	}{
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"169.254.169.254", "link-local"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"100.127.255.255", "carrier-grade NAT"},
		{"0.0.0.0", "this network"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"255.255.255.255", "reserved"},
		{"198.18.0.1", "benchmarking"},
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"fc00::1", "unique local"},
		{"fd12:3456::1", "unique local"},
		{"ff02::1", "multicast"},
		{"::ffff:127.0.0.1", "IPv4-mapped loopback"},
		{"::ffff:10.0.0.1", "IPv4-mapped private"},
		{"::ffff:169.254.169.254", "IPv4-mapped link-local"},
		{"::127.0.0.1", "IPv4-compatible"},
		{"64:ff9b::a00:1", "IPv6-embedded private"},
		{"2002:7f00:1::1", "IPv6-embedded loopback"},
		{"2001:db8::1", "documentation"},
		// Public addresses pass.
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"100.128.0.1", ""},
		{"172.32.0.1", ""},
		{"::ffff:8.8.8.8", ""},
		{"2606:4700:4700::1111", ""},
		{"64:ff9b::808:808", ""},
		{"2002:808:808::1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			err := g.CheckAddr(netip.MustParseAddr(tt.addr))
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("CheckAddr(%s) = %v, want allowed", tt.addr, err)
				}
				return
			}
			if !errors.Is(err, ErrForbiddenAddress) {
				t.Fatalf("CheckAddr(%s) = %v, want ErrForbiddenAddress", tt.addr, err)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("CheckAddr(%s) = %q, want reason %q", tt.addr, err, tt.reason)
			}
		})
	}
}

func TestAllowCIDRs(t *testing.T) {
	g := guard(t, Config{AllowCIDRs: []string{"127.0.0.0/8", "10.1.0.0/16"}})
	for _, a := range []string{"127.0.0.1", "::ffff:127.0.0.1", "10.1.2.3"} {
		if err := g.CheckAddr(netip.MustParseAddr(a)); err != nil {
			t.Errorf("%s: %v, want allowed", a, err)
		}
	}
	for _, a := range []string{"10.2.0.1", "::1", "169.254.169.254"} {
		if err := g.CheckAddr(netip.MustParseAddr(a)); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: %v, want refused", a, err)
		}
	}
	if _, err := New(Config{AllowCIDRs: []string{"127.0.0.1"}}); err == nil || !strings.Contains(err.Error(), `"127.0.0.1"`) {
		t.Errorf("malformed CIDR: err = %v", err)
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url          string
		requireHTTPS bool
		want         error // nil = ok; errAny = some error
	}{
		{"https://example.com/hook", true, nil},
		{"http://example.com/hook", false, nil},
		{"http://example.com/hook", true, ErrInsecureScheme},
		{"ftp://example.com/", false, ErrInsecureScheme},
		{"file:///etc/passwd", false, ErrInsecureScheme},
		{"https://10.0.0.1/hook", false, ErrForbiddenAddress},
		{"https://[::ffff:127.0.0.1]/hook", false, ErrForbiddenAddress},
		{"https://[fe80::1%25eth0]/hook", false, ErrForbiddenAddress},
		{"https:///nohost", false, errAny},
		{"https://user:pw@example.com/", false, errAny},
		{"://bad", false, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := guard(t, Config{RequireHTTPS: tt.requireHTTPS}).CheckURL(tt.url)
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("CheckURL = %v, want ok", err)
			case tt.want == errAny && err == nil:
				t.Fatal("CheckURL accepted it")
			case tt.want != nil && tt.want != errAny && !errors.Is(err, tt.want):
				t.Fatalf("CheckURL = %v, want %v", err, tt.want)
			}
		})
	}
}

var errAny = errors.New("any error")

// counter is a loopback test server that counts the requests it gets.
func counter(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestClientRefusesAtDial(t *testing.T) {
	srv, hits := counter(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	client := guard(t, Config{}).Client()
	tests := []struct {
		name, url, wantInMsg string
	}{
		{"literal loopback", "http://127.0.0.1:" + port + "/", "127.0.0.1: loopback"},
		{"hostname resolving to loopback", "http://localhost:" + port + "/", "localhost:" + port},
		{"IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]:" + port + "/", "IPv4-mapped loopback"},
		{"IPv6 loopback", "http://[::1]:" + port + "/", "::1: loopback"},
		{"unspecified", "http://0.0.0.0:" + port + "/", "this network"},
		// Refused before connect(2): no packet leaves the machine.
		{"literal private", "http://10.0.0.1/", "10.0.0.1: private"},
		{"literal private 192.168", "http://192.168.0.1/", "192.168.0.1: private"},
		{"metadata service", "http://169.254.169.254/latest/meta-data/", "169.254.169.254: link-local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := client.Get(tt.url)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("GET %s succeeded with %d", tt.url, resp.StatusCode)
			}
			if !errors.Is(err, ErrForbiddenAddress) {
				t.Fatalf("err = %v, want ErrForbiddenAddress", err)
			}
			var ae *AddressError
			if !errors.As(err, &ae) {
				t.Fatalf("err %v is not an *AddressError", err)
			}
			if !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Errorf("err = %q, want it to mention %q", err, tt.wantInMsg)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server got %d requests", n)
	}
}

func TestClientAllowedCIDRReachesLoopback(t *testing.T) {
	srv, hits := counter(t)
	client := guard(t, Config{AllowCIDRs: []string{"127.0.0.0/8"}}).Client()
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || hits.Load() != 1 {
		t.Fatalf("status %d, hits %d", resp.StatusCode, hits.Load())
	}
	// ::1 is not in 127.0.0.0/8.
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	if _, err := client.Get("http://[::1]:" + port + "/"); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("::1 with only 127.0.0.0/8 allowed: err = %v", err)
	}
}

func TestClientDoesNotFollowRedirects(t *testing.T) {
	target, targetHits := counter(t)
	tests := []struct{ name, location string }{
		{"to a private address", "http://10.0.0.1/admin"},
		{"to the metadata service", "http://169.254.169.254/latest/meta-data/"},
		{"to another loopback server", target.URL + "/internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			redirector := httptest.NewServer(http.RedirectHandler(tt.location, http.StatusFound))
			defer redirector.Close()
			client := guard(t, Config{AllowCIDRs: []string{"127.0.0.0/8"}}).Client()
			resp, err := client.Post(redirector.URL, "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != tt.location {
				t.Fatalf("got %d Location %q, want the 302 itself", resp.StatusCode, resp.Header.Get("Location"))
			}
		})
	}
	if n := targetHits.Load(); n != 0 {
		t.Errorf("redirect target got %d requests", n)
	}
}

func TestClientRequireHTTPS(t *testing.T) {
	srv, hits := counter(t)
	client := guard(t, Config{AllowCIDRs: []string{"127.0.0.0/8"}, RequireHTTPS: true}).Client()
	if _, err := client.Get(srv.URL); !errors.Is(err, ErrInsecureScheme) {
		t.Fatalf("http with RequireHTTPS: err = %v", err)
	}
	if hits.Load() != 0 {
		t.Fatal("request was sent")
	}

	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer tlsSrv.Close()
	g := guard(t, Config{AllowCIDRs: []string{"127.0.0.0/8"}, RequireHTTPS: true,
		TLSConfig: tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig})
	resp, err := g.Client().Get(tlsSrv.URL)
	if err != nil {
		t.Fatalf("https to an allowed loopback server: %v", err)
	}
	resp.Body.Close()
}

func TestDialContextNamesHost(t *testing.T) {
	g := guard(t, Config{})
	_, err := g.DialContext(context.Background(), "tcp", "localhost:1")
	var ae *AddressError
	if !errors.As(err, &ae) || ae.Host != "localhost:1" || !ae.Addr.IsLoopback() {
		t.Fatalf("err = %v (%+v)", err, ae)
	}
}

// TestCheckURLNeverRepeatsAPassword: refusals are logged and stored, so they must not carry the
// password of a URL with user info.
func TestCheckURLNeverRepeatsAPassword(t *testing.T) {
	g, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{
		"https://user:hunter2secret@example.com/hook",
		"ftp://user:hunter2secret@example.com/hook",
		"https://user:hunter2secret@example.com/%zz",
	} {
		err := g.CheckURL(raw)
		if err == nil {
			t.Fatalf("%s: accepted", raw)
		}
		if strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("%s: error repeats the password: %v", raw, err)
		}
	}
}
