package ext

var _ ChangeObservable = (*Notifier)(nil)
