package dashboard

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/svcplatform/svc/store"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFS embed.FS

// contentSecurityPolicy allows nothing inline and nothing from elsewhere: the pages need no
// script, and their one stylesheet and the document page images come from the dashboard.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

// secureHeaders are set on every dashboard answer. no-store keeps private pages out of the
// browser's cache, so the back button after sign-out shows nothing.
func secureHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
}

// staticFiles serves the stylesheet; it carries no private data, so it may be cached.
func staticFiles() http.Handler {
	files := http.FileServerFS(staticFS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}

// templates are the pages, each parsed with the layout: templates/<name>.html defines "title"
// and "content"; layout.html and the partials (_*.html) are shared.
type templates struct {
	byName map[string]*template.Template
}

func mustParseTemplates() *templates {
	t, err := parseTemplates()
	if err != nil {
		panic(err)
	}
	return t
}

func parseTemplates() (*templates, error) {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	base := template.New("layout.html").Funcs(funcs)
	var pages []string
	for _, n := range names {
		b := path.Base(n)
		if b == "layout.html" || strings.HasPrefix(b, "_") {
			if _, err := base.ParseFS(templateFiles, n); err != nil {
				return nil, err
			}
			continue
		}
		pages = append(pages, n)
	}
	out := &templates{byName: map[string]*template.Template{}}
	for _, n := range pages {
		t, err := template.Must(base.Clone()).ParseFS(templateFiles, n)
		if err != nil {
			return nil, err
		}
		out.byName[strings.TrimSuffix(path.Base(n), ".html")] = t
	}
	return out, nil
}

// view is what every page template gets.
type view struct {
	// Page is the template's name, on <body data-page> (the browser tests wait for it).
	Page  string
	Title string
	// Section names the navigation entry to mark as current.
	Section string
	User    *store.User
	CSRF    string
	// Nav are the navigation's entries: a product's only for an organisation that uses it.
	Nav []navItem
	// Notice says what the last action did; Refusal why it was refused, in plain words.
	Notice  string
	Refusal string
	// People name the organisation's users, on pages that say who did something.
	People people
	// FieldErrors are the API's details.fieldErrors of a refused form.
	FieldErrors map[string][]string
	Query       url.Values
	Data        any
}

// render writes page name with v.
func (q *request) render(status int, name string, v view) {
	t, ok := q.d.views.byName[name]
	if !ok {
		panic("dashboard: no template " + name)
	}
	v.Page = name
	if q.user != nil {
		v.User = q.user
		v.CSRF = q.sess.CSRFToken
		v.Nav = q.nav(v.Section)
	}
	if v.Query == nil {
		v.Query = q.r.URL.Query()
	}
	if v.Notice == "" {
		v.Notice = notices[q.r.URL.Query().Get("done")]
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", v); err != nil {
		q.d.Logger.Error("dashboard template", "template", name, "error", err)
		http.Error(q.w, "internal server error", http.StatusInternalServerError)
		return
	}
	q.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	q.w.WriteHeader(status)
	_, _ = q.w.Write(buf.Bytes())
}

// notices are the plain-words results of the actions that redirect (?done=…).
var notices = map[string]string{
	"approved":   "Approved. The execution continues.",
	"rejected":   "Rejected. The execution stops at this step.",
	"revoked":    "The key was revoked: it no longer works.",
	"user":       "The user was saved.",
	"corrected":  "The correction was saved as a new extraction.",
	"password":   "The password was given; the document is being read again.",
	"tested":     "A webhook.test event was sent; its delivery appears below.",
	"redelivery": "The event is being delivered again; the new delivery appears below.",
	"webhook":    "The subscription was created.",

	// screenings, fraud, statements, identity
	"resolved":              "The hit was resolved.",
	"reviewed":              "The review was recorded.",
	"version-submit":        "The version was submitted for approval; another person must approve it.",
	"version-approve":       "The version was approved; it can be published.",
	"version-reject":        "The version was rejected.",
	"version-publish":       "The version was published: it decides from now on.",
	"analysis-password":     "The password opened the PDF; the statements are being read.",
	"verification-reviewed": "Your decision was recorded.",
}

// notFound answers the not-found page: an unknown page, or another organisation's resource.
func (q *request) notFound() {
	q.render(http.StatusNotFound, "notfound", view{Title: "Not found"})
}

// fail answers a page that only says what went wrong.
func (q *request) fail(status int, msg string) {
	q.render(status, "error", view{Title: "Something went wrong", Refusal: msg})
}

// redirect sends the browser to url with 303 See Other (after a form, a GET).
func (q *request) redirect(url string) {
	http.Redirect(q.w, q.r, url, http.StatusSeeOther)
}

var funcs = template.FuncMap{
	// dict builds a partial's arguments from key, value pairs: {{template "x" (dict "k" v)}}.
	"dict": func(kv ...any) (map[string]any, error) {
		if len(kv)%2 != 0 {
			return nil, fmt.Errorf("dict: %d arguments, want key, value pairs", len(kv))
		}
		m := make(map[string]any, len(kv)/2)
		for i := 0; i < len(kv); i += 2 {
			k, ok := kv[i].(string)
			if !ok {
				return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
			}
			m[k] = kv[i+1]
		}
		return m, nil
	},
	// when shows an RFC 3339 timestamp of the API in UTC, minutes precision.
	"when": func(v any) string {
		s, _ := v.(string)
		if s == "" {
			return "—"
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return s
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	// pretty shows a JSON value indented.
	"pretty": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	},
	// text shows a JSON value in one line: strings as they are, null as a dash.
	"text": func(v any) string {
		switch x := v.(type) {
		case nil:
			return "—"
		case string:
			return x
		case float64:
			return fmt.Sprint(x)
		}
		b, _ := json.Marshal(v)
		return string(b)
	},
	"percent": func(v any) string {
		f, ok := v.(float64)
		if !ok {
			return "—"
		}
		return fmt.Sprintf("%.0f%%", f*100)
	},
	// keys are a map's keys, sorted.
	"keys": func(m map[string]any) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	},
	"has": func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	},
	"join": strings.Join,
	// withQuery is query with key set to value (a next-page link keeps the filters). It is
	// already encoded: as a plain string, html/template would encode its "=" and "&" again.
	"withQuery": func(query url.Values, key, value string) template.URL {
		c := url.Values{}
		for k, v := range query {
			c[k] = append([]string(nil), v...)
		}
		c.Set(key, value)
		c.Del("done")
		return template.URL(c.Encode())
	},
	// text0 is a JSON string value, "" for null (form values).
	"text0": func(v any) string { return str(v) },
	"anyMap": func(v any) map[string]any {
		m, _ := v.(map[string]any)
		return m
	},
	// money shows an amount in minor units (cents) with two decimals.
	"money": money,
	// approvalCard is what the approval partial needs: the approval, the form token and the
	// execution page the form is on ("" on the inbox).
	"approvalCard": func(a any, csrf, from string) map[string]any {
		return map[string]any{"A": a, "CSRF": csrf, "From": from}
	},
}

// navItem is one entry of the navigation.
type navItem struct {
	Name, Label string
	Current     bool
}
