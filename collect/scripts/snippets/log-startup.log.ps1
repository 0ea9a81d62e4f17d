param([long]$MaxBytes = 10485760, [string]$Since = '')
# The node's provisioning log: Anthos startup.log, or AKS CustomDataSetupScript.log.
# Since is accepted but not applied: klog lines carry no year, and a stale log is evidence too.
Read-WtsTail -What 'node startup' -MaxBytes $MaxBytes -Paths 'C:\var\log\startup.log', 'C:\etc\kubernetes\logs\startup*.log', 'C:\AzureData\CustomDataSetupScript.log'
