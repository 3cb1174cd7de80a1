package monitoring_test

import (
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v2"

	"github.com/kraftmigration/zkwriter/internal/testkit/promtest"
)

// ruleFile is the part of a Prometheus rule file the tests read.
type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert  string `yaml:"alert"`
			Record string `yaml:"record"`
			Expr   string `yaml:"expr"`
			For    string `yaml:"for"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// readRules parses rules.yml.
func readRules(t *testing.T) ruleFile {
	t.Helper()
	data, err := os.ReadFile("rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// alerts returns the alerts of rules.yml, sorted.
func (f ruleFile) alerts() []string {
	var names []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				names = append(names, r.Alert)
			}
		}
	}
	sort.Strings(names)
	return names
}

// unitTests is the part of rules_test.yml the coverage check reads.
type unitTests struct {
	Tests []struct {
		AlertRuleTest []struct {
			EvalTime  string `yaml:"eval_time"`
			Alertname string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

// TestRules checks rules.yml with promtool and runs its unit tests,
// rules_test.yml, which must make every alert fire and then resolve
// within one test.
// Fault: none; promtool is the judge. Removing an alert's resolution from
// rules_test.yml fails the coverage check.
func TestRules(t *testing.T) {
	out := promtool(t, "check", "rules", "rules.yml")
	alerts := readRules(t).alerts()
	if !strings.Contains(out, "SUCCESS") || len(alerts) == 0 {
		t.Fatalf("promtool check rules:\n%s", out)
	}
	out = promtool(t, "test", "rules", "rules_test.yml")
	if !strings.Contains(out, "SUCCESS") {
		t.Fatalf("promtool test rules:\n%s", out)
	}

	data, err := os.ReadFile("rules_test.yml")
	if err != nil {
		t.Fatal(err)
	}
	var tests unitTests
	if err := yaml.Unmarshal(data, &tests); err != nil {
		t.Fatal(err)
	}
	resolves := map[string]bool{}
	for _, tc := range tests.Tests {
		fired := map[string]time.Duration{}
		for _, a := range tc.AlertRuleTest {
			at, err := time.ParseDuration(a.EvalTime)
			if err != nil {
				t.Fatalf("eval_time %q: %v", a.EvalTime, err)
			}
			switch first, ok := fired[a.Alertname]; {
			case len(a.ExpAlerts) > 0 && (!ok || at < first):
				fired[a.Alertname] = at
			case len(a.ExpAlerts) == 0 && ok && at > first:
				resolves[a.Alertname] = true
			}
		}
	}
	for _, name := range alerts {
		if !resolves[name] {
			t.Errorf("rules_test.yml has no test in which %s fires and then resolves", name)
		}
	}
}

func promtool(t *testing.T, args ...string) string {
	t.Helper()
	return promtest.Promtool(t, ".", args...)
}
