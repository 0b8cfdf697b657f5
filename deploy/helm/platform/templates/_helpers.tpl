{{/* Names and labels. Every object of a node carries its name: <release>-<node>[-part]. */}}

{{- define "platform.chart" -}}
{{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* <release>-<node>: the node's StatefulSet; args: dict "root" $ "node" $node */}}
{{- define "platform.nodeName" -}}
{{ printf "%s-%s" .root.Release.Name .node.name | trunc 52 | trimSuffix "-" }}
{{- end -}}

{{- define "platform.commonLabels" -}}
app.kubernetes.io/name: platform
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ include "platform.chart" . }}
{{- end -}}

{{/* the labels that select a node's part; args: dict "root" $ "node" $node "component" "node|nats|postgres" */}}
{{- define "platform.selectorLabels" -}}
app.kubernetes.io/name: platform
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
platform.io/node: {{ .node.name }}
{{- end -}}

{{- define "platform.labels" -}}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
helm.sh/chart: {{ include "platform.chart" .root }}
{{ include "platform.selectorLabels" . }}
{{- end -}}

{{/* the Secret holding a node's keys */}}
{{- define "platform.secretName" -}}
{{- if .node.existingSecret -}}
{{ .node.existingSecret }}
{{- else -}}
{{ include "platform.nodeName" . }}-secrets
{{- end -}}
{{- end -}}

{{- define "platform.genesisConfigMap" -}}
{{- if .Values.network.genesisConfigMap -}}
{{ .Values.network.genesisConfigMap }}
{{- else -}}
{{ .Release.Name }}-genesis
{{- end -}}
{{- end -}}

{{/* every node of the network: network.members, else this release's nodes */}}
{{- define "platform.members" -}}
{{- if .Values.network.members -}}
{{ join "," .Values.network.members }}
{{- else -}}
{{- $names := list -}}
{{- range .Values.nodes }}{{ $names = append $names .name }}{{ end -}}
{{ join "," $names }}
{{- end -}}
{{- end -}}

{{- define "platform.replicas" -}}
{{- if .Values.network.replicas -}}
{{ .Values.network.replicas }}
{{- else -}}
{{ min 3 (len (splitList "," (include "platform.members" .))) }}
{{- end -}}
{{- end -}}

{{/* a node's NATS server: its StatefulSet's and headless Service's name */}}
{{- define "platform.natsName" -}}
{{ include "platform.nodeName" . }}-nats
{{- end -}}

{{/* a node's NATS server's address inside the cluster: its pod by the headless Service */}}
{{- define "platform.natsHost" -}}
{{ include "platform.natsName" . }}-0.{{ include "platform.natsName" . }}.{{ .root.Release.Namespace }}.svc.{{ .root.Values.clusterDomain }}
{{- end -}}

{{- define "platform.postgresName" -}}
{{ include "platform.nodeName" . }}-postgres
{{- end -}}

{{/* the bundled PostgreSQL's address inside the cluster, host:port; args: dict "root" $ "node" $node */}}
{{- define "platform.postgresAddress" -}}
{{ include "platform.postgresName" . }}.{{ .root.Release.Namespace }}.svc.{{ .root.Values.clusterDomain }}:5432
{{- end -}}

{{/* the read-only role the gateway reads cirrus's schema as: the launcher's CIRRUS_READ_ROLE (a chart test keeps the two equal) */}}
{{- define "platform.cirrusReadRole" -}}
cirrus_reader
{{- end -}}

{{/* a container's DATABASE_URL: the bundled PostgreSQL as its owner, or the operator's URL; args: dict "root" $ "node" $node "secret" <the node's Secret> */}}
{{- define "platform.databaseEnv" -}}
{{- if .root.Values.postgres.enabled -}}
- name: POSTGRES_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ .secret }}, key: postgres-password } }
- { name: DATABASE_URL, value: "postgres://platform:$(POSTGRES_PASSWORD)@{{ include "platform.postgresAddress" . }}/platform" }
{{- else -}}
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ replace "{node}" .node.name .root.Values.postgres.external.secretName }}, key: {{ .root.Values.postgres.external.key }} } }
{{- end -}}
{{- end -}}

{{/*
A container's CIRRUS_READ_DATABASE_URL: the same database as DATABASE_URL as the
read role, its password from the node's Secret (the bundled PostgreSQL), or the
operator's URL from the Secret of DATABASE_URL; args: as platform.databaseEnv
*/}}
{{- define "platform.cirrusReadEnv" -}}
{{- if .root.Values.postgres.enabled -}}
- name: CIRRUS_READER_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ .secret }}, key: cirrus-reader-password } }
- { name: CIRRUS_READ_DATABASE_URL, value: "postgres://{{ include "platform.cirrusReadRole" . }}:$(CIRRUS_READER_PASSWORD)@{{ include "platform.postgresAddress" . }}/platform" }
{{- else -}}
- name: CIRRUS_READ_DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ replace "{node}" .node.name .root.Values.postgres.external.secretName }}, key: {{ .root.Values.postgres.external.readKey }} } }
{{- end -}}
{{- end -}}

{{- define "platform.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end -}}

{{/* what every container of the chart may not do */}}
{{- define "platform.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: [ALL]
{{- end -}}

{{/* the NATS users, one per service and the observer: their seeds' keys in the node's Secret */}}
{{- define "platform.busUsers" -}}
vault,transaction,block,cirrus,chains,files,gateway,observer
{{- end -}}

{{/* A service's NODE_OPTIONS: its young generation, one V8 helper thread, and gc exposed (each service collects its grown heap when at rest), as the launcher gives them (libs/launcher/src/memory.ts; a chart test keeps the two equal) */}}
{{- define "platform.nodeOptions" -}}
{{- $semiSpace := dict "gateway" 4 "transaction" 4 "block" 4 "cirrus" 2 -}}
--max-semi-space-size={{ get $semiSpace . | default 1 }} --v8-pool-size=1 --expose-gc
{{- end -}}

{{/*
A node service's environment: its container's, and the block service's
rebuild step's (the same process, run once before the services); args: dict
"root" $ "node" $node "secret" <the node's Secret> "service" <its name>
*/}}
{{- define "platform.serviceEnv" -}}
# the memory each process may hold on to, as the launcher sets it (libs/launcher/src/memory.ts)
- { name: NODE_OPTIONS, value: {{ include "platform.nodeOptions" .service | quote }} }
- { name: MALLOC_ARENA_MAX, value: "2" }
- { name: DATA_DIR, value: /data }
- { name: HOST, value: 0.0.0.0 }
- { name: PORT, value: "8080" }
- { name: VAULT_PORT, value: "8090" }
- { name: IDP_PORT, value: "8081" }
{{- if ne .service "idp" }}
- { name: NODE_NAME, value: {{ .node.name | quote }} }
- { name: NODE_ORG, value: {{ .node.organization | quote }} }
- { name: NETWORK_REPLICAS, value: {{ include "platform.replicas" .root | quote }} }
- { name: NATS_URL, value: "nats://{{ include "platform.natsHost" . }}:4222" }
- { name: NATS_CREDENTIALS, value: /etc/platform/bus/{{ .service }}.nk }
{{- include "platform.databaseEnv" . | nindent 0 }}
{{- if .root.Values.identity.devProvider }}
- { name: OAUTH_DISCOVERY_URL, value: "http://127.0.0.1:8081/.well-known/openid-configuration" }
{{- else }}
- { name: OAUTH_DISCOVERY_URL, value: {{ required "identity.discoveryUrl: the OpenID provider's discovery URL, when identity.devProvider is false" .root.Values.identity.discoveryUrl | quote }} }
{{- end }}
{{- with .root.Values.identity.audience }}
- { name: OAUTH_AUDIENCE, value: {{ . | quote }} }
{{- end }}
{{- end }}
{{- if eq .service "transaction" }}
- { name: FAUCET_KEY_FILE, value: /etc/platform/faucet/faucet.key }
{{- end }}
{{- if and .root.Values.cirrusRead.enabled (eq .service "cirrus") }}
# the role cirrus grants its schema to at every start; only the gateway gets the role's URL (its password)
- { name: CIRRUS_READ_ROLE, value: {{ include "platform.cirrusReadRole" .root }} }
{{- end }}
{{- if and .root.Values.cirrusRead.enabled (eq .service "gateway") }}
# /cirrus/search read here as the read role (services/gateway/src/routes/cirrus.ts), not asked of cirrus over NATS
{{- include "platform.cirrusReadEnv" . | nindent 0 }}
{{- end }}
{{- if eq .service "gateway" }}
# the chart runs no files service (nor an object store) yet: the gateway neither routes the file endpoints nor waits for it
- { name: FILES_URL, value: none }
{{- end }}
{{- if eq .service "vault" }}
- { name: NODE_CA_CERT, value: /etc/platform/ca/ca.pem }
- { name: NODE_CA_KEY, value: /etc/platform/ca/ca.key }
- name: VAULT_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ .secret }}, key: vault-password } }
# set only while rotating the password: the vault re-encrypts its keys under it at its start
- name: VAULT_NEW_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ .secret }}, key: vault-new-password, optional: true } }
{{- end }}
{{- range $name, $value := .root.Values.settings }}
- { name: {{ $name }}, value: {{ $value | toString | quote }} }
{{- end }}
{{- end -}}

{{/* a node service's volumes: its container's, and the block service's rebuild step's; args: the service's name */}}
{{- define "platform.serviceMounts" -}}
- { name: data, mountPath: /data }
- { name: tmp, mountPath: /tmp }
{{- if ne . "idp" }}
- { name: bus-{{ . }}, mountPath: /etc/platform/bus, readOnly: true }
{{- end }}
{{- if eq . "transaction" }}
- { name: faucet, mountPath: /etc/platform/faucet, readOnly: true }
{{- end }}
{{- if eq . "vault" }}
- { name: ca, mountPath: /etc/platform/ca, readOnly: true }
{{- end }}
{{- end -}}
