// Package netguard builds HTTP clients for user-supplied URLs (webhook targets,
// http workflow nodes) that cannot be turned against internal services (SSRF).
//
// The check runs at dial time on the IP address actually being connected to
// (net.Dialer.Control), after DNS resolution, so a name that resolves to an
// internal address, or that is rebound to one after it was saved, is refused.
// Redirects are never followed: a 3xx is returned to the caller as the response.
package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// ErrForbiddenAddress is wrapped by every refusal of an address (see AddressError).
var ErrForbiddenAddress = errors.New("forbidden address")

// ErrInsecureScheme is returned for a non-https URL when RequireHTTPS is set,
// and for any scheme other than http and https.
var ErrInsecureScheme = errors.New("scheme not allowed")

// AddressError says which address was refused and why; it matches ErrForbiddenAddress with errors.Is.
type AddressError struct {
	// Host is the host:port that was dialled, as named in the URL (may equal Addr).
	Host string
	// Addr is the IP address refused.
	Addr netip.Addr
	// Reason names the range, e.g. "loopback" or "private (RFC 1918)".
	Reason string
}

// Error reads e.g. "netguard: refused to connect to localhost:80 (127.0.0.1): loopback address".
func (e *AddressError) Error() string {
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("netguard: refused to connect to %s (%s): %s address", e.Host, e.Addr, e.Reason)
	}
	return fmt.Sprintf("netguard: refused to connect to %s: %s address", e.Addr, e.Reason)
}

// Is makes errors.Is(err, ErrForbiddenAddress) true.
func (e *AddressError) Is(target error) bool { return target == ErrForbiddenAddress }

// Config configures a Guard.
type Config struct {
	// AllowCIDRs are ranges that may be reached although they are internal
	// (e.g. "127.0.0.0/8" for svc dev and tests). An IPv4 range also covers
	// the IPv4-mapped IPv6 form of its addresses.
	AllowCIDRs []string
	// RequireHTTPS refuses http:// URLs (the live environment).
	RequireHTTPS bool
	// Timeout bounds a whole request including reading the body; zero means none.
	Timeout time.Duration
	// TLSConfig, if set, is used for https (for example a private CA); nil uses the system roots.
	TLSConfig *tls.Config
}

// Guard decides which addresses and URLs may be reached and builds clients that enforce it.
type Guard struct {
	allow        []netip.Prefix
	requireHTTPS bool
	timeout      time.Duration
	tlsConfig    *tls.Config
}

// New returns a Guard for cfg; it fails on a malformed CIDR.
func New(cfg Config) (*Guard, error) {
	g := &Guard{requireHTTPS: cfg.RequireHTTPS, timeout: cfg.Timeout, tlsConfig: cfg.TLSConfig}
	for _, c := range cfg.AllowCIDRs {
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return nil, fmt.Errorf("netguard: allowed CIDR %q: %w", c, err)
		}
		g.allow = append(g.allow, p.Masked())
	}
	return g, nil
}

// blocked lists the ranges refused unless allowed, each with the reason reported.
var blocked = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), `"this network"`},
	{netip.MustParsePrefix("10.0.0.0/8"), "private (RFC 1918)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT (RFC 6598)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private (RFC 1918)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private (RFC 1918)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible IPv6"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("fc00::/7"), "unique local (private)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// CheckAddr returns an *AddressError if ip may not be reached: it is in an
// internal range (private, loopback, link-local, multicast, unspecified, CGNAT,
// reserved, documentation...) or an IPv6 form embedding such an IPv4 address
// (IPv4-mapped, NAT64, 6to4), and not within an allowed CIDR.
func (g *Guard) CheckAddr(ip netip.Addr) error {
	ip = ip.WithZone("")
	if !ip.IsValid() {
		return &AddressError{Addr: ip, Reason: "invalid"}
	}
	if g.allowed(ip) {
		return nil
	}
	if reason := internal(ip); reason != "" {
		return &AddressError{Addr: ip, Reason: reason}
	}
	return nil
}

func (g *Guard) allowed(ip netip.Addr) bool {
	for _, p := range g.allow {
		if p.Contains(ip) || p.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}

// internal names the internal range ip belongs to, or returns "".
func internal(ip netip.Addr) string {
	if ip.Is4In6() {
		if r := internal(ip.Unmap()); r != "" {
			return "IPv4-mapped " + r
		}
		return ""
	}
	for _, b := range blocked {
		if b.prefix.Contains(ip) {
			return b.reason
		}
	}
	if ip.Is6() {
		b := ip.As16()
		var embedded netip.Addr
		switch {
		case nat64.Contains(ip):
			embedded = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		case sixToFour.Contains(ip):
			embedded = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
		}
		if embedded.IsValid() {
			if r := internal(embedded); r != "" {
				return "IPv6-embedded " + r
			}
		}
	}
	// Belt and braces: the standard library's own classification.
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip.IsUnspecified():
		return "unspecified"
	}
	if ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return "broadcast"
	}
	return ""
}

// CheckURL checks a target URL before it is saved or requested: an absolute
// http or https URL (https only with RequireHTTPS) with a host and no user
// info; a literal IP host must pass CheckAddr. Host names are checked when
// dialled, since DNS can change.
func (g *Guard) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, which may carry a password: keep only the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("netguard: invalid URL: %w", err)
	}
	// Messages show the URL with any password masked: they reach logs and the delivery log.
	raw = u.Redacted()
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && !g.requireHTTPS:
	case u.Scheme == "http":
		return fmt.Errorf("netguard: %q: https required: %w", raw, ErrInsecureScheme)
	default:
		return fmt.Errorf("netguard: %q: scheme %q: want http or https: %w", raw, u.Scheme, ErrInsecureScheme)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("netguard: %q: URL has no host", raw)
	}
	if u.User != nil {
		return fmt.Errorf("netguard: %q: URL must not contain user info", raw)
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
		if err := g.CheckAddr(ip); err != nil {
			return err
		}
	}
	return nil
}

// control runs on every connection attempt after resolution, before connect.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" && network != "tcp" {
		return fmt.Errorf("netguard: network %q not allowed: %w", network, ErrForbiddenAddress)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: cannot parse dialled address %q: %w", address, ErrForbiddenAddress)
	}
	return g.CheckAddr(ap.Addr())
}

// DialContext dials like net.Dialer but refuses forbidden addresses; the error
// names the host as given and the address refused.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: g.control}
	conn, err := d.DialContext(ctx, network, addr)
	var ae *AddressError
	if errors.As(err, &ae) && ae.Host == "" {
		ae.Host = addr
	}
	return conn, err
}

// Client returns an *http.Client that dials only allowed addresses, never
// follows redirects (a 3xx is returned as the response), ignores proxy
// environment variables, and refuses http:// with RequireHTTPS.
func (g *Guard) Client() *http.Client {
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            g.DialContext,
		TLSClientConfig:        g.tlsConfig,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: &schemeCheck{g: g, next: tr},
		Timeout:   g.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// schemeCheck refuses URLs CheckURL would refuse before any dial.
type schemeCheck struct {
	g    *Guard
	next http.RoundTripper
}

// RoundTrip checks the request URL, then sends it.
func (s *schemeCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := s.g.CheckURL(req.URL.String()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return s.next.RoundTrip(req)
}
