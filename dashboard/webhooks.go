package dashboard

import (
	"net/http"
	"net/url"
	"strings"
)

type webhooksData struct {
	Rows []any
	Form map[string]string
}

// webhooks lists the subscriptions with the subscribe form.
func (d *Dashboard) webhooks(q *request) {
	q.showWebhooks(http.StatusOK, "", nil)
}

func (q *request) showWebhooks(status int, refusal string, refused *answer) {
	a, ok := q.get("/api/webhooks", url.Values{"limit": {"100"}})
	if !ok {
		return
	}
	v := view{Title: "Webhooks", Section: "webhooks", Refusal: refusal, Data: webhooksData{
		Rows: a.Rows(), Form: map[string]string{"url": q.form("url"), "events": q.form("events")},
	}}
	if refused != nil {
		v.FieldErrors = refused.FieldErrors()
	}
	q.render(status, "webhooks", v)
}

// createWebhook subscribes a URL through the API (its SSRF guard, its event names) and shows
// the signing secret, this once.
func (d *Dashboard) createWebhook(q *request) {
	events := strings.FieldsFunc(q.form("events"), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' })
	a := q.call(http.MethodPost, "/api/webhooks", nil, map[string]any{"url": q.form("url"), "events": events})
	switch {
	case a.OK():
		q.render(http.StatusOK, "webhook_created", view{Title: "Webhook created", Section: "webhooks", Data: a.Data()})
	case a.Status == http.StatusUnauthorized:
		q.refused(a)
	default:
		q.showWebhooks(a.Status, plainWords(a, q.role()), &a)
	}
}

type webhookData struct {
	Webhook    map[string]any
	Deliveries []any
}

// webhook is one subscription and its delivery log, newest first.
func (d *Dashboard) webhook(q *request) {
	q.showWebhook(http.StatusOK, "")
}

func (q *request) showWebhook(status int, refusal string) {
	id := url.PathEscape(q.r.PathValue("id"))
	w, ok := q.get("/api/webhooks/"+id, nil)
	if !ok {
		return
	}
	dl, ok := q.get("/api/webhooks/"+id+"/deliveries", url.Values{"limit": {"50"}})
	if !ok {
		return
	}
	q.render(status, "webhook", view{Title: "Webhook " + str(w.Data()["url"]), Section: "webhooks", Refusal: refusal,
		Data: webhookData{Webhook: w.Data(), Deliveries: dl.Rows()}})
}

// testWebhook sends webhook.test to the subscription through the API.
func (d *Dashboard) testWebhook(q *request) {
	a := q.call(http.MethodPost, "/api/webhooks/"+url.PathEscape(q.r.PathValue("id"))+"/test", nil, nil)
	q.webhookAnswer(a, Prefix+"/webhooks/"+url.PathEscape(q.r.PathValue("id"))+"?done=tested")
}

// delivery is one delivery with every attempt.
func (d *Dashboard) delivery(q *request) {
	a, ok := q.get("/api/webhooks/"+url.PathEscape(q.r.PathValue("id"))+"/deliveries/"+url.PathEscape(q.r.PathValue("deliveryId")), nil)
	if !ok {
		return
	}
	q.render(http.StatusOK, "delivery", view{Title: "Delivery " + str(a.Data()["id"]), Section: "webhooks", Data: a.Data()})
}

// redeliver delivers the same event again through the API (the whole retry ladder).
func (d *Dashboard) redeliver(q *request) {
	a := q.call(http.MethodPost, "/api/webhooks/"+url.PathEscape(q.r.PathValue("id"))+"/deliveries/"+
		url.PathEscape(q.r.PathValue("deliveryId"))+"/redeliver", nil, nil)
	q.webhookAnswer(a, Prefix+"/webhooks/"+url.PathEscape(q.r.PathValue("id"))+"?done=redelivery")
}

func (q *request) webhookAnswer(a answer, next string) {
	q.acted(a, next, func(status int, refusal string, _ *answer) { q.showWebhook(status, refusal) })
}
