// Package kubernetes holds the test of the Kubernetes manifests beside it:
// each decodes strictly into the Kubernetes API types (an unknown or
// misspelt field fails), and the Job is the Indexed Job gobench's shards
// need.
package kubernetes

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeStrict decodes the YAML file path into v, refusing unknown and
// duplicate fields.
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// kustomization is the part of kustomize's Kustomization type that
// kustomization.yaml uses; decoding it strictly fails on any other field.
type kustomization struct {
	APIVersion         string   `json:"apiVersion"`
	Kind               string   `json:"kind"`
	Resources          []string `json:"resources"`
	ConfigMapGenerator []struct {
		Name string   `json:"name"`
		Envs []string `json:"envs"`
	} `json:"configMapGenerator"`
	GeneratorOptions struct {
		DisableNameSuffixHash bool `json:"disableNameSuffixHash"`
	} `json:"generatorOptions"`
}

// readEnvFile reads start.env's KEY=VALUE lines.
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			t.Fatalf("%s: %q is not KEY=VALUE", path, sc.Text())
		}
		env[k] = v
	}
	return env
}

// flagValue returns the value of --name=VALUE among args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// TestManifests: the Job is an Indexed Job of N pods that run N shards
// (--num-shards = completions = parallelism), never retried, each saving a
// detailed result and printing it as JSON; every $(VAR) of its arguments
// is one of the container's variables; the ConfigMap it reads is the one
// kustomization.yaml makes from start.env, with the keys it reads; the
// optional claim decodes too.
func TestManifests(t *testing.T) {
	var job batchv1.Job
	decodeStrict(t, "job.yaml", &job)
	var pvc corev1.PersistentVolumeClaim
	decodeStrict(t, "results-pvc.yaml", &pvc)
	var k kustomization
	decodeStrict(t, "kustomization.yaml", &k)

	spec := job.Spec
	if job.Kind != "Job" || spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("kind %q, completionMode %v: want an Indexed Job", job.Kind, spec.CompletionMode)
	}
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions != *spec.Parallelism {
		t.Fatalf("completions %v, parallelism %v: every shard runs at once", spec.Completions, spec.Parallelism)
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit != 0 || spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("backoffLimit %v, restartPolicy %q: a shard retried after --start-at cannot start", spec.BackoffLimit, spec.Template.Spec.RestartPolicy)
	}
	if len(spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(spec.Template.Spec.Containers))
	}
	c := spec.Template.Spec.Containers[0]
	args := c.Args
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("args %v: want gobench serve", args)
	}
	n, _ := flagValue(args, "num-shards")
	if n != strconv.Itoa(int(*spec.Completions)) {
		t.Errorf("--num-shards=%s, completions %d: they must be equal", n, *spec.Completions)
	}
	if _, ok := flagValue(args, "shard-index"); ok {
		t.Error("--shard-index given: each pod's shard is its JOB_COMPLETION_INDEX")
	}
	for _, want := range []string{"--save-result", "--save-detailed", "--format=json", "--start-at=$(START_AT)"} {
		if !slices.Contains(args, want) {
			t.Errorf("args lack %s", want)
		}
	}
	vars := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		vars[e.Name] = e
	}
	for _, m := range regexp.MustCompile(`\$\(([A-Z_]+)\)`).FindAllStringSubmatch(strings.Join(args, " "), -1) {
		if _, ok := vars[m[1]]; !ok {
			t.Errorf("args use $(%s), which the container does not define", m[1])
		}
	}
	mounted := false
	for _, vm := range c.VolumeMounts {
		if r, _ := flagValue(args, "result-filename"); strings.HasPrefix(r, vm.MountPath+"/") {
			mounted = true
		}
	}
	if !mounted {
		t.Error("--result-filename is not on a mounted volume")
	}

	checkConfigMap(t, c, k)
	shard, ok := vars["SHARD"]
	if !ok || shard.ValueFrom == nil || shard.ValueFrom.FieldRef == nil ||
		shard.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("SHARD is not the pod's completion index: %+v", shard)
	}
}

// checkConfigMap: the ConfigMap the container reads is the one
// kustomization.yaml makes from start.env, with the keys it reads.
func checkConfigMap(t *testing.T, c corev1.Container, k kustomization) {
	t.Helper()
	if len(k.ConfigMapGenerator) != 1 || !slices.Equal(k.Resources, []string{"job.yaml"}) {
		t.Fatalf("kustomization: resources %v, %d generators", k.Resources, len(k.ConfigMapGenerator))
	}
	gen := k.ConfigMapGenerator[0]
	env := readEnvFile(t, gen.Envs[0])
	for _, e := range c.Env {
		if e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil {
			continue
		}
		ref := e.ValueFrom.ConfigMapKeyRef
		if ref.Name != gen.Name || !k.GeneratorOptions.DisableNameSuffixHash {
			t.Errorf("%s reads ConfigMap %q; kustomization makes %q", e.Name, ref.Name, gen.Name)
		}
		if _, ok := env[ref.Key]; !ok {
			t.Errorf("%s reads key %q, which %s does not set", e.Name, ref.Key, gen.Envs[0])
		}
	}
	if _, err := time.Parse(time.RFC3339, env["START_AT"]); err != nil {
		t.Errorf("start.env START_AT: %v", err)
	}
}

// TestStrictDecodingRefusesUnknownFields: the decoding the manifests go
// through fails on a misspelt field, so TestManifests would catch one.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	data, err := os.ReadFile("job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "  completionMode: Indexed", "  completionMode: Indexed\n  paralelism: 3", 1)
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(bad), &job); err == nil || !strings.Contains(err.Error(), "paralelism") {
		t.Errorf("a misspelt field decoded: %v", err)
	}
}
