class New {}
