{{/* Templates use a small subset of Helm's language (test/src/gotemplate.ts renders it in tests):
     .Values/.Release/.Chart fields, define/include, if/else, range (with until), toYaml, nindent, quote, default. */}}

{{- define "windlass.fullname" -}}
{{ .Release.Name }}-windlass
{{- end }}

{{- define "windlass.selectorLabels" -}}
app.kubernetes.io/name: windlass
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "windlass.labels" -}}
{{ include "windlass.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end }}

{{- define "windlass.etcdName" -}}
{{ .Release.Name }}-etcd
{{- end }}

{{- define "windlass.etcdSelectorLabels" -}}
app.kubernetes.io/name: etcd
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* --etcd-servers: every bundled member by its stable name, or the external endpoints. */}}
{{- define "windlass.etcdServers" -}}
{{- if .Values.etcd.bundled.enabled -}}
{{- range $i, $_ := until .Values.etcd.bundled.replicas -}}
{{ if $i }},{{ end }}http://{{ include "windlass.etcdName" $ }}-{{ $i }}.{{ include "windlass.etcdName" $ }}.{{ $.Release.Namespace }}.svc:2379
{{- end -}}
{{- else -}}
{{- range $i, $url := .Values.etcd.endpoints -}}
{{ if $i }},{{ end }}{{ $url }}
{{- end -}}
{{- end -}}
{{- end }}

{{/* The bundled members' --initial-cluster. */}}
{{- define "windlass.etcdInitialCluster" -}}
{{- range $i, $_ := until .Values.etcd.bundled.replicas -}}
{{ if $i }},{{ end }}{{ include "windlass.etcdName" $ }}-{{ $i }}=http://{{ include "windlass.etcdName" $ }}-{{ $i }}.{{ include "windlass.etcdName" $ }}.{{ $.Release.Namespace }}.svc:2380
{{- end -}}
{{- end }}
