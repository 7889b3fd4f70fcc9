; The Windows installer of DTP Personal Server, built by packaging/Makefile
; (target windows) with makensis -DVERSION=… -DVERSION_DOTS=… -DSRC=DIR
; -DOUTFILE=FILE, where DIR holds dtp-personal.exe and dtp-personal.ico.
;
; It installs for all users into Program Files (so it asks for elevation),
; adds a Start-menu entry and, if ticked, starts the app at login for the
; user who installs: the same value under HKCU's Run key that the app's own
; "Start at login" setting writes (ui/autostart). The uninstaller removes the
; program, the entry and that value, and the user's data only when asked.
;
; Silent use: setup.exe /S [/AUTOSTART=0] [/D=DIR]
;             uninstall.exe /S [/REMOVEDATA=1]

Unicode true
Target amd64-unicode
SetCompressor /SOLID lzma

!include MUI2.nsh
!include FileFunc.nsh
!include LogicLib.nsh
!include Sections.nsh

!define APP "DTP Personal Server"
!define EXE "dtp-personal.exe"
!define APPID "org.dtp.personal"
!define RUNKEY "Software\Microsoft\Windows\CurrentVersion\Run"
!define APPROVEDKEY "Software\Microsoft\Windows\CurrentVersion\Explorer\StartupApproved\Run"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APPID}"

Name "${APP}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\${APP}"
InstallDirRegKey HKLM "${UNINSTKEY}" "InstallLocation"
RequestExecutionLevel admin
ShowInstDetails show
ShowUninstDetails show

VIProductVersion "${VERSION_DOTS}"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "FileDescription" "${APP} installer"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "CompanyName" "Digital Trust Protocol"
VIAddVersionKey "LegalCopyright" "Digital Trust Protocol"

!define MUI_ICON "${SRC}\dtp-personal.ico"
!define MUI_UNICON "${SRC}\dtp-personal.ico"
!define MUI_COMPONENTSPAGE_NODESC
!define MUI_FINISHPAGE_RUN
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP} now"
!define MUI_FINISHPAGE_RUN_FUNCTION StartApp

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "${APP}" SecApp
	SectionIn RO
	SetShellVarContext all
	SetOutPath "$INSTDIR"
	File "${SRC}\${EXE}"
	File "${SRC}\dtp-personal.ico"
	WriteUninstaller "$INSTDIR\uninstall.exe"
	CreateShortcut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\${EXE}" "" "$INSTDIR\dtp-personal.ico" 0

	SetRegView 64
	WriteRegStr HKLM "${UNINSTKEY}" "DisplayName" "${APP}"
	WriteRegStr HKLM "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
	WriteRegStr HKLM "${UNINSTKEY}" "Publisher" "Digital Trust Protocol"
	WriteRegStr HKLM "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\dtp-personal.ico"
	WriteRegStr HKLM "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
	WriteRegStr HKLM "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
	WriteRegStr HKLM "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
	WriteRegDWORD HKLM "${UNINSTKEY}" "NoModify" 1
	WriteRegDWORD HKLM "${UNINSTKEY}" "NoRepair" 1
	${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
	WriteRegDWORD HKLM "${UNINSTKEY}" "EstimatedSize" $0
SectionEnd

Section "Start at login" SecLogin
	; the command line the app's own setting writes: the program, quoted
	WriteRegStr HKCU "${RUNKEY}" "${APP}" '"$INSTDIR\${EXE}"'
	DeleteRegValue HKCU "${APPROVEDKEY}" "${APP}"
SectionEnd

; /AUTOSTART=0 leaves "Start at login" unticked in a silent install.
Function .onInit
	${GetParameters} $0
	ClearErrors
	${GetOptions} $0 "/AUTOSTART=" $1
	${IfNot} ${Errors}
	${AndIf} $1 == "0"
		!insertmacro UnselectSection ${SecLogin}
	${EndIf}
FunctionEnd

; The installer runs elevated; Explorer starts the app as the user instead.
Function StartApp
	Exec '"$WINDIR\explorer.exe" "$INSTDIR\${EXE}"'
FunctionEnd

Section "un.${APP}" UnSecApp
	SectionIn RO
	SetShellVarContext all
	ClearErrors
	Delete "$INSTDIR\${EXE}"
	${If} ${Errors}
		MessageBox MB_OK|MB_ICONSTOP "${APP} is running. Quit it from its tray menu, then uninstall again." /SD IDOK
		Abort
	${EndIf}
	Delete "$INSTDIR\dtp-personal.ico"
	Delete "$INSTDIR\uninstall.exe"
	RMDir "$INSTDIR"
	Delete "$SMPROGRAMS\${APP}.lnk"
	DeleteRegValue HKCU "${RUNKEY}" "${APP}"
	DeleteRegValue HKCU "${APPROVEDKEY}" "${APP}"
	; written by the app so that Windows shows its notifications
	DeleteRegKey HKCU "Software\Classes\AppUserModelId\${APPID}"
	SetRegView 64
	DeleteRegKey HKLM "${UNINSTKEY}"
SectionEnd

Section /o "un.My data (%AppData%\dtp-personal: the database and settings)" UnSecData
	SetShellVarContext current
	RMDir /r "$APPDATA\dtp-personal"
	RMDir /r "$APPDATA\fyne\${APPID}"
	RMDir "$APPDATA\fyne"
SectionEnd

; /REMOVEDATA=1 removes the data in a silent uninstall too.
Function un.onInit
	${GetParameters} $0
	ClearErrors
	${GetOptions} $0 "/REMOVEDATA=" $1
	${IfNot} ${Errors}
	${AndIf} $1 == "1"
		!insertmacro SelectSection ${UnSecData}
	${EndIf}
FunctionEnd
