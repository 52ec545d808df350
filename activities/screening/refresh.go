package screening

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/ids"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/store"
	scrwf "github.com/svcplatform/svc/workflows/screening"
)

// maxListBytes bounds one list file read from a source (the OFAC and UN files are tens of MB).
const maxListBytes = 1 << 30

// minKeptShare is the share of a list's entities a new version must keep: a file that
// loses more than half the entities at once is far likelier cut short than a real change.
const minKeptShare = 0.5

// Activities are the screening product's activities.
type Activities struct {
	*Screener
	// HTTP reads sources given as URLs, through the SSRF guard (config screening.allow_cidrs).
	HTTP *http.Client
}

func malformed(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return temporal.NewNonRetryableApplicationError(msg, scrwf.ErrTypeMalformedList, errors.New(msg))
}

// RefreshList reads one configured source, parses it and stores a new version of its
// platform list when the content changed, with screening.list_updated to every organisation
// written in the same transaction. A file that does not parse, is empty or lost more than half the list fails
// with ErrTypeMalformedList and the version in service stays.
func (a *Activities) RefreshList(ctx context.Context, in scrwf.RefreshListInput) (scrwf.RefreshListResult, error) {
	src, err := scr.ParseSource(in.Source)
	if err != nil {
		return scrwf.RefreshListResult{}, malformed("%v", err)
	}
	entities, err := a.load(ctx, src)
	if err != nil {
		return scrwf.RefreshListResult{}, err
	}
	if len(entities) == 0 {
		return scrwf.RefreshListResult{}, malformed("list %s: no entities (empty or truncated file)", src.Name)
	}
	l, err := a.Store.Screening.SourcedList(ctx, src.Name)
	if errors.Is(err, store.ErrNotFound) {
		l = &store.ScreeningList{ID: ids.DeriveFrom(ids.List, in.At, "source", src.Name), OrgID: store.PlatformOrg, Name: src.Name,
			Kind: string(src.Format), CreatedAt: in.At.UTC(), RefreshedAt: in.At.UTC()}
		published, err := a.Store.Screening.CreateList(ctx, l, entities, true)
		if err != nil {
			return scrwf.RefreshListResult{}, err
		}
		a.Deliver(ctx, published)
		return scrwf.RefreshListResult{ListID: l.ID, Name: l.Name, Version: 1, Changed: true, Entities: len(entities), Added: len(entities)}, nil
	}
	if err != nil {
		return scrwf.RefreshListResult{}, err
	}
	if float64(len(entities)) < minKeptShare*float64(l.EntityCount) {
		return scrwf.RefreshListResult{}, malformed("list %s: %d entities where version %d has %d (truncated file?); version %d stays in service",
			src.Name, len(entities), l.Version, l.EntityCount, l.Version)
	}
	v, changed, published, err := a.Store.Screening.NewVersion(ctx, l, entities, in.At)
	if err != nil {
		return scrwf.RefreshListResult{}, err
	}
	res := scrwf.RefreshListResult{ListID: l.ID, Name: l.Name, Version: l.Version, Changed: changed, Entities: l.EntityCount}
	if changed {
		res.Added, res.Updated, res.Removed = len(v.Delta.Added), len(v.Delta.Changed), len(v.Delta.Removed)
		a.Deliver(ctx, published)
	}
	return res, nil
}

// load reads and parses a source's files.
func (a *Activities) load(ctx context.Context, src scr.Source) ([]scr.Entity, error) {
	main, err := a.read(ctx, src.Location)
	if err != nil {
		return nil, err
	}
	extra := map[string]io.Reader{}
	for k, loc := range src.Extra {
		b, err := a.read(ctx, loc)
		if err != nil {
			return nil, err
		}
		extra[k] = strings.NewReader(string(b))
	}
	entities, err := scr.Load(src.Format, strings.NewReader(string(main)), extra)
	if err != nil {
		return nil, malformed("list %s: %v", src.Name, err)
	}
	return entities, nil
}

// read fetches a location: an http(s) URL through the SSRF guard, or a file path.
func (a *Activities) read(ctx context.Context, loc string) ([]byte, error) {
	if !strings.HasPrefix(loc, "http://") && !strings.HasPrefix(loc, "https://") {
		f, err := os.Open(loc)
		if err != nil {
			return nil, malformed("%v", err)
		}
		defer f.Close()
		return readCapped(f, loc)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, malformed("%s: %v", loc, err)
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return nil, err // a network failure is worth a retry
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", req.URL.Redacted(), resp.StatusCode)
	}
	return readCapped(resp.Body, req.URL.Redacted())
}

func readCapped(r io.Reader, name string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxListBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > maxListBytes {
		return nil, malformed("%s: larger than %d bytes", name, maxListBytes)
	}
	return b, nil
}
