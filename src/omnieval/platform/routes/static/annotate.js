// Annotation by keyboard: a digit picks that score, N picks "not applicable", Ctrl/Cmd+Enter saves.
document.addEventListener("keydown", (event) => {
  const form = document.getElementById("annotation-form");
  if (!form) return;
  const typing = event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLInputElement && event.target.type === "text";
  if ((event.ctrlKey || event.metaKey) && event.key === "Enter") { form.requestSubmit(); return; }
  if (typing) return;
  const value = event.key.toUpperCase() === "N" ? "NA" : event.key;
  const radio = form.querySelector(`input[name=score][value="${CSS.escape(value)}"]`);
  if (radio) { radio.checked = true; radio.focus(); event.preventDefault(); }
});
